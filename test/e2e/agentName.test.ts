/**
 * End to end: one definition of an agent's name, held by every verb that
 * takes --agent. A name no grant could name is refused as core.input.invalid
 * (exit 2) before anything is written; a client's reported name that is not
 * one is made into one, so the record and a refusal's hint spell it alike.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { noStack, rta } from "../support/rta.ts";

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
        const r = await rta(args, { env });
        const seen = { name, code: r.code, said: r.stderr.includes("(core.input.invalid)"), out: r.stdout };
        expect(seen).toEqual({ name, code: 2, said: true, out: "" });
        expect(noStack(r.stderr)).toBe(true);
        // the name is said as JSON would, never as the bytes a terminal would act on
        expect(r.stderr).not.toContain("\u001b");
        expect(r.stderr.length).toBeLessThan(400);
      }
      const state = await Promise.all([
        rta(["lock", "list", "--json"], { env }),
        rta(["grant", "list", "--json"], { env }),
        rta(["mcp", "token", "list", "--json"], { env }),
      ]);
      expect(state.map((s) => JSON.parse(s.stdout))).toEqual([{ locks: [] }, { grants: [] }, { tokens: [] }]);
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
      const r = await rta(args, { env });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
    }
    const listed = JSON.parse((await rta(["grant", "list", "--agent", "cursor", "--json"], { env })).stdout);
    expect(listed.grants.map((g: { agent: string }) => g.agent)).toEqual(["cursor"]);
    expect((await rta(["grant", "revoke", "--agent", "x".repeat(64)], { env })).stderr).toContain(
      "(core.grant.unknown)",
    );
  });
});

describe("a client's reported name", () => {
  test("one that is no agent name is made into one: the record and the refusal's hint spell it alike", async () => {
    const dataDir = tempDir();
    const s = await connect("modern", [], { dataDir, clientName: "Claude Desktop\u001b[2J" });
    try {
      const r = resultJson(await s.client.callTool({ name: "note_add", arguments: { title: "t", body: "b" } }));
      expect(r.code).toBe("core.grant.required");
      expect(r.hint).toContain("`rta grant allow note.add --agent Claude-Desktop-2J --ttl 5m`");
    } finally {
      await s.close();
    }
    const lines = readRecord(join(dataDir, "agent-log.jsonl")).lines.filter((l) => !l.kind);
    expect(lines.map((l) => l.agent)).toEqual(["Claude-Desktop-2J"]);
  });
});
