/**
 * One definition of an agent's name, held by every verb that takes --agent: a
 * name no grant could name is refused as core.input.invalid (exit 2) before
 * anything is written. Run in-process against a factory of fakes.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { noStack } from "../support/rta.ts";
import { runCli } from "../support/runCli.ts";

function dirsEnv() {
  return { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
}

const BAD_NAMES = ["", " ", "a b", "-claude", ".claude", "claude\n", "claude\u001b[2J", "ü", "x".repeat(65), "a/b"];

/** Every verb that takes an agent's name, with NAME where it goes. */
const VERBS: string[][] = [
  ["lock", "--agent", "NAME"],
  ["lock", "note.add", "--agent", "NAME", "--ttl", "5m"],
  ["lock", "lift", "--agent", "NAME"],
  ["grant", "allow", "note.add", "--agent", "NAME", "--ttl", "5m"],
  ["grant", "revoke", "--agent", "NAME"],
  ["grant", "list", "--agent", "NAME"],
  ["mcp", "token", "new", "--agent", "NAME"],
  ["mcp", "token", "revoke", "--agent", "NAME"],
  ["mcp", "install", "claude", "--agent", "NAME"],
  ["mcp", "serve", "--agent", "NAME"],
  ["agent", "log", "--agent", "NAME"],
];

describe("an agent's name on the command line", () => {
  for (const verb of VERBS) {
    test(`rta ${verb.join(" ")}: an empty or malformed name is core.input.invalid, and nothing is written`, async () => {
      const env = dirsEnv();
      for (const name of BAD_NAMES) {
        const args = verb.map((w) => (w === "NAME" ? name : w));
        const r = await runCli(args, { env });
        const seen = { name, code: r.code, said: r.stderr.includes("(core.input.invalid)"), out: r.stdout };
        expect(seen).toEqual({ name, code: 2, said: true, out: "" });
        expect(noStack(r.stderr)).toBe(true);
        // the name is said as JSON would, never as the bytes a terminal would act on
        expect(r.stderr).not.toContain("\u001b");
        expect(r.stderr.length).toBeLessThan(400);
      }
      const state = await Promise.all([
        runCli(["lock", "list", "--json"], { env }),
        runCli(["grant", "list", "--json"], { env }),
        runCli(["mcp", "token", "list", "--json"], { env }),
      ]);
      expect(state.map((s) => JSON.parse(s.stdout))).toEqual([
        { locks: [], total: 0 },
        { grants: [], total: 0 },
        { tokens: [], total: 0 },
      ]);
    });
  }

  test("a good name still works for each verb, and grant list --agent shows that agent's grants only", async () => {
    const env = dirsEnv();
    for (const args of [
      ["grant", "allow", "note.add", "--agent", "claude.code_2-x", "--ttl", "5m"],
      ["grant", "allow", "note.add", "--agent", "cursor", "--ttl", "5m"],
      ["lock", "--agent", "claude.code_2-x"],
      ["lock", "lift", "--agent", "claude.code_2-x"],
      ["mcp", "token", "new", "--agent", "claude.code_2-x"],
      ["mcp", "token", "revoke", "--agent", "claude.code_2-x"],
      ["agent", "log", "--agent", "claude.code_2-x"],
    ]) {
      const r = await runCli(args, { env });
      // piped, `grant allow` says the grant's price on stderr, and nothing else does
      const said = args[0] === "grant" ? expect.stringMatching(/^a grant of note\.add/) : "";
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: said });
      expect(r.stderr).not.toContain("rta: ");
    }
    const listed = JSON.parse((await runCli(["grant", "list", "--agent", "cursor", "--json"], { env })).stdout);
    expect(listed.grants.map((g: { agent: string }) => g.agent)).toEqual(["cursor"]);
    expect((await runCli(["grant", "revoke", "--agent", "x".repeat(64)], { env })).stderr).toContain(
      "(core.grant.unknown)",
    );
  });
});
