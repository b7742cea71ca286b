/**
 * End to end: gate.db removed or replaced while a server runs. The server
 * kept the store it opened first, so once the name held another file (or
 * none), a lock or a revoke from the CLI went to the new store and the server
 * never saw it: a person who cleared rta's data dir to start over, then locked
 * the agent, was not obeyed. Now each agent call looks at the name, and a
 * store that is not the one opened refuses it as core.store.unavailable.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

async function serving() {
  const data = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
  const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env });
  const call = async () => resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
  expect((await call()).type).toBe("object");
  return { s, data, env, call };
}

describe("the grant store's name holds another file while a server runs", () => {
  test("a data dir cleared, then a lock from the CLI: the server's next call is refused", async () => {
    const { s, data, env, call } = await serving();
    try {
      rmSync(data, { recursive: true, force: true });
      expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
      expect((await call()).code).toBe("core.store.unavailable");
    } finally {
      await s.close();
    }
  });

  test("gate.db replaced by a copy: refused as unavailable, not an internal error", async () => {
    const { s, data, call } = await serving();
    try {
      copyFileSync(join(data, "gate.db"), join(data, "copy.db"));
      renameSync(join(data, "copy.db"), join(data, "gate.db"));
      const r = await call();
      expect(r.code).toBe("core.store.unavailable");
      expect(String(r.hint)).toContain("restart");
    } finally {
      await s.close();
    }
  });
});
