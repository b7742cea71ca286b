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

test("a value an agent stored, or one revealed to it, never masks the name of a tool it calls after", async () => {
  const data = tempDir();
  const identity = join(tempDir(), "id.txt");
  if (Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode !== 0) throw new Error("age-keygen");
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
  for (const cap of ["kv.set", "kv.get"])
    expect((await rta(["grant", "allow", cap, "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
  const root = tempDir();
  const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
  try {
    const set = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "x", value: "fs_list" } }));
    expect(set.type).toBe("object");
    expect(resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "x" } }))).toEqual({
      type: "text",
      text: "fs_list",
    });
    expect(resultJson(await s.client.callTool({ name: "fs_list", arguments: { path: root } })).type).toBe("table");
    // a tool that is none of the server's, named with the value, is still masked
    await s.client.callTool({ name: "fs_list_x", arguments: {} }).catch(() => undefined);
  } finally {
    await s.close();
  }
  const lines = JSON.parse((await rta(["agent", "log", "--json"], { env })).stdout) as Record<string, unknown>[];
  expect(lines.map((l) => l.capability).slice(-4)).toEqual(["kv_set", "kv_get", "fs_list", "***_x"]);
});
