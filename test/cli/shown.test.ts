import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Chalk } from "chalk";
import { humanLine } from "../../src/cli/agent.ts";
import { jsonShown, renderHuman, shown } from "../../src/cli/render.ts";
import { table } from "../../src/core/result.ts";
import { callEntry, tempDir } from "../support/fixtures.ts";
import { onScreen } from "../support/runCli.ts";

const plain = new Chalk({ level: 0 });
/** Everything a terminal acts on: C0 but for none, DEL, C1, the separators, the bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ACTS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const hostile = "a\u001b[2J\u001b]0;owned\u0007b\r\nc\td\u009b31m\u202eevil\u2066\u2028\u0000\u007f";

describe("shown: a string someone else chose, made safe for a person's terminal", () => {
  test("every control is written out as an escape, and the rest is left as it is", () => {
    expect(shown(hostile)).toBe("a\\x1b[2J\\x1b]0;owned\\x07b\\r\\nc\\td\\x9b31m\\u202eevil\\u2066\\u2028\\x00\\x7f");
    expect(shown("plain é 🙂 name_1.2")).toBe("plain é 🙂 name_1.2");
    expect(shown(hostile)).not.toMatch(ACTS);
  });

  test("every human table, object and tree shows it escaped: grant, lock and token lists among them", () => {
    const grid = renderHuman(table(["id", "agent"], [["g1", hostile]]), plain);
    expect(grid.replaceAll("\n", "")).not.toMatch(ACTS);
    expect(grid.split("\n")).toHaveLength(3); // header, one row, end: no line was faked
    const object = renderHuman({ type: "object", value: { [hostile]: hostile, nested: { x: [hostile] } } }, plain);
    expect(object.replaceAll("\n", "")).not.toMatch(ACTS);
    const tree = renderHuman(
      { type: "tree", root: { name: hostile, children: [{ name: "x", value: hostile }] } },
      plain,
    );
    expect(tree.replaceAll("\n", "")).not.toMatch(ACTS);
  });

  test("a text result (a file read on a terminal) keeps its lines and tabs, and shows every other control escaped", () => {
    const text = renderHuman({ type: "text", text: hostile }, plain);
    expect(text).toBe("a\\x1b[2J\\x1b]0;owned\\x07b\r\nc\td\\x9b31m\\u202eevil\\u2066\\u2028\\x00\\x7f\n");
    expect(text.replaceAll("\r\n", "").replaceAll("\n", "").replaceAll("\t", "")).not.toMatch(ACTS);
    // a carriage return alone would write over the line before it: it is shown
    expect(renderHuman({ type: "text", text: "rm -rf ~\rls" }, plain)).toBe("rm -rf ~\\rls\n");
  });

  test("a file an agent wrote, read with rta fs read on a terminal, cannot set the title or the clipboard", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "notes.txt"), "hello\u001b]0;owned\u0007 \u001b]52;c;ZWNobyBoaQ==\u0007\nbye\n");
    const { code, screen } = await onScreen(["fs", "read", join(dir, "notes.txt")]);
    expect(code).toBe(0);
    expect(screen).toBe("hello\\x1b]0;owned\\x07 \\x1b]52;c;ZWNobyBoaQ==\\x07\nbye\n");
  });

  test("a record line is shown escaped, field by field", () => {
    const line = {
      ...callEntry("s\u001b[2J", `sys_info\r\n2026-11-30T00:00:00Z  s1  claude  fs_rm  ok  1 ms`),
      agent: "\u202eedualc",
      grant: "g\u0007",
      seq: 1,
    };
    const shownLine = humanLine(line);
    expect(shownLine).not.toMatch(ACTS);
    expect(shownLine).toContain("sys_info\\r\\n2026");
    expect(shownLine).toContain("\\u202eedualc");
  });

  test("JSON keeps its value and leaves nothing raw a terminal acts on", () => {
    const value = { agent: hostile, list: [hostile] };
    const text = jsonShown(value);
    expect(text).not.toMatch(ACTS);
    expect(JSON.parse(text)).toEqual(value);
  });
});
