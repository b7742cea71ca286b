/**
 * `rta explain NAME` for a name that is never a tool: the person's command it
 * is, in its own words, and that no server offers it; a group lists its verbs;
 * a name kept with no command says so; a near miss is refused with the verb it
 * is near. And an area's listing ends with its never-a-tool verbs.
 */
import { describe, expect, test } from "bun:test";
import { NEVER_A_TOOL } from "../../src/core/catalogue.ts";
import { runCli } from "../support/runCli.ts";

const NOTE =
  "The person's, at the terminal: never a tool. No server offers it, on any transport or with any flag, and an agent that names it is answered as an unknown tool.";

describe("rta explain of a never-a-tool name", () => {
  test("kv.copy is the person's command, with what it does and its inputs", async () => {
    const r = await runCli(["explain", "kv.copy"], { env: { NO_COLOR: "1" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("kv.copy  Copy a value to the clipboard, cleared after 45 s, never printed");
    expect(lines[1]).toBe(NOTE);
    expect(r.stdout).toContain("  command   rta kv copy <name>\n  tool      none (never a tool)\n");
    expect(r.stdout).toContain("  name  the key's name  (argument, required)\n");
    expect(r.stdout).toContain("  --clear-after <seconds>  clear the clipboard after this many seconds");
    expect(r.stdout).not.toContain("no capability");
  });

  test("every listed verb, by dotted or tool name, has a card; --json says never_a_tool and no tool", async () => {
    for (const verb of NEVER_A_TOOL.verbs) {
      for (const name of [verb, verb.replaceAll(".", "_")]) {
        const r = await runCli(["explain", name, "--json"]);
        expect(r.code).toBe(0);
        const card = JSON.parse(r.stdout);
        expect(card).toMatchObject({ name: verb, never_a_tool: true, tool: null });
        expect(typeof card.summary).toBe("string");
      }
    }
    const edit = JSON.parse((await runCli(["explain", "keys.import", "--json"])).stdout);
    expect(edit).toMatchObject({
      command: "rta keys import <file>",
      summary: "Install an age identity file (FILE, or - for stdin) as this rta's identity",
      inputs: expect.arrayContaining([expect.objectContaining({ name: "file", kind: "argument", required: true })]),
    });
    expect(JSON.parse((await runCli(["explain", "kv.edit", "--json"])).stdout).command).toBe("rta kv edit");
  });

  test("a never-a-tool area lists its verbs; one of them has its card", async () => {
    const group = await runCli(["explain", "grant"], { env: { NO_COLOR: "1" } });
    expect(group.code).toBe(0);
    expect(group.stdout).toContain(NOTE);
    expect(group.stdout).toMatch(/\n {2}rta grant allow {3}allow an agent/);
    expect(group.stdout).toContain("run rta explain grant.<verb> for one verb's card");
    const json = JSON.parse((await runCli(["explain", "mcp.token", "--json"])).stdout);
    expect(json.verbs.map((v: { name: string }) => v.name)).toEqual([
      "mcp.token.new",
      "mcp.token.list",
      "mcp.token.revoke",
    ]);
    const allow = JSON.parse((await runCli(["explain", "grant_allow", "--json"])).stdout);
    expect(allow.command).toBe("rta grant allow <target> [value]");
    expect(allow.inputs).toContainEqual({
      name: "--ttl <duration>",
      kind: "option",
      description: "how long it lasts: 30s, 5m, 1h30m, 2d",
      required: true,
    });
  });

  test("a name kept with no command here says so; a near miss names the verb it is near", async () => {
    const kept = await runCli(["explain", "operator", "--json"]);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ name: "operator", command: null, never_a_tool: true });
    const miss = await runCli(["explain", "grant.allw"]);
    expect(miss.code).toBe(2);
    expect(miss.stdout).toBe("");
    expect(miss.stderr).toBe(
      'rta: error: no command is named "grant.allw" (core.tool.unknown)\nrta: hint: did you mean `rta explain grant.allow`? run `rta explain grant` to list its verbs\n',
    );
    const typo = await runCli(["explain", "kv.cpy"]);
    expect(typo.stderr).toContain("did you mean `rta explain kv.copy`?");
  });

  test("an area's listing ends with its never-a-tool verbs, in each form", async () => {
    const json = JSON.parse((await runCli(["explain", "kv", "--json"])).stdout);
    expect(json.never_a_tool).toEqual(["kv copy", "kv edit"]);
    const piped = await runCli(["explain", "keys"]);
    expect(piped.stdout).toContain("keys export\t\tnever a tool\tthe person's alone\n");
    const all = JSON.parse((await runCli(["explain", "--json"])).stdout);
    for (const verb of ["kv copy", "kv edit", "keys export", "keys import", "audit clients", "audit doctor"])
      expect(all.never_a_tool).toContain(verb);
  });
});
