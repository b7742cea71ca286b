import { describe, expect, test } from "bun:test";
import { MemoryRecord, sessionMark } from "../../src/record/append.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { callEntry as call } from "../support/fixtures.ts";

/** Two sessions, interleaved as two servers would write them, both ended. */
function record(): string[] {
  const m = new MemoryRecord();
  const t = new Date("2026-11-30T00:00:00Z");
  m.append(sessionMark("start", "aaaa", t, "stdio"));
  m.append(sessionMark("start", "bbbb", t, "stdio"));
  for (let i = 0; i < 4; i++) {
    m.append(call("aaaa", `tool_a${i}`));
    m.append(call("bbbb", `tool_b${i}`));
  }
  m.append(sessionMark("end", "aaaa", t, "stdio"));
  m.append(sessionMark("end", "bbbb", t, "stdio"));
  return m.lines.map((l) => JSON.stringify(l));
}
const text = (rows: string[]) => `${rows.join("\n")}\n`;
const dead = () => false;

describe("--verify", () => {
  test("an untouched record passes", () => {
    expect(verifyRecord(text(record()), dead)).toEqual({ sessions: 2, lines: 12, problems: [], open: [] });
  });

  test("an altered line is named, with its session and line", () => {
    const rows = record();
    rows[4] = (rows[4] as string).replace('"outcome":"ok"', '"outcome":"core.grant.required"');
    const v = verifyRecord(text(rows), dead);
    expect(v.problems).toEqual([
      { session: "aaaa", line: 5, what: expect.stringContaining("does not match its chain") },
    ]);
  });

  test("a removed line is named by the one after it", () => {
    const rows = record();
    rows.splice(2, 1); // aaaa's first call
    const v = verifyRecord(text(rows), dead);
    expect(v.problems[0]).toMatchObject({
      session: "aaaa",
      line: 4,
      what: expect.stringContaining("1 line(s) before it were removed"),
    });
  });

  test("two lines of a session swapped are named", () => {
    const rows = record();
    [rows[2], rows[4]] = [rows[4] as string, rows[2] as string]; // aaaa call 1 with aaaa call 2
    const v = verifyRecord(text(rows), dead);
    expect(v.problems.some((p) => p.session === "aaaa" && p.line === 5 && p.what.includes("reordered"))).toBe(true);
  });

  test("a cut tail is named: the session's last line and its missing end", () => {
    const rows = record().slice(0, 9);
    const v = verifyRecord(text(rows), dead);
    expect(v.problems).toEqual([
      { session: "aaaa", line: 9, what: expect.stringContaining("its tail was cut") },
      { session: "bbbb", line: 8, what: expect.stringContaining("its tail was cut") },
    ]);
  });

  test("a session whose server still runs is open, not broken", () => {
    const rows = record().filter((r) => !(r.includes('"kind":"end"') && r.includes("aaaa")));
    const v = verifyRecord(text(rows), () => true);
    expect(v.problems).toEqual([]);
    expect(v.open).toEqual(["aaaa"]);
  });

  test("a line that is not JSON is named", () => {
    const rows = record();
    rows[3] = "{garbage";
    expect(verifyRecord(text(rows), dead).problems[0]).toMatchObject({
      line: 4,
      what: expect.stringContaining("not a record line"),
    });
  });
});
