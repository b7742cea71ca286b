/**
 * End to end: a value an agent sends kv_set is masked in the record from
 * then on only once the store took it. A call refused before it ran (no
 * grant) stored nothing, so its value masks only its own line: an agent
 * with no grant cannot have the record mask the words of every later line
 * (a tool's name, its own), and so blind the record to what it does next.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

test("a kv_set refused for want of a grant masks none of the record's later lines", async () => {
  const data = tempDir();
  const identity = join(tempDir(), "id.txt");
  if (Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode !== 0) throw new Error("age-keygen");
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
  const root = tempDir();
  const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env });
  try {
    for (const value of ["fs_list", "claude"]) {
      const refused = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "x", value } }));
      expect(refused.code).toBe("core.grant.required");
    }
    expect(resultJson(await s.client.callTool({ name: "fs_list", arguments: { path: root } })).type).toBe("table");
  } finally {
    await s.close();
  }
  const lines = JSON.parse((await rta(["agent", "log", "--json"], { env })).stdout) as Record<string, unknown>[];
  const last = lines.at(-1) as Record<string, unknown>;
  expect(last.capability).toBe("fs_list");
  expect(last.agent).toBe("claude");
});
