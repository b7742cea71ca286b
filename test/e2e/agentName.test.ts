/**
 * End to end: a client's reported name that is not an agent's name is made
 * into one, so the record and a refusal's hint spell it alike. The verbs that
 * take --agent are tested in-process in test/cli/agentName.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

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
