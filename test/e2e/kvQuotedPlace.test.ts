/**
 * End to end: an identity file in a folder whose name holds a quote (a home
 * of o'brien). The hint of kv.identity.mode quotes the path for the shell,
 * `chmod 600 '/…/o'\''brien/id.txt'`, which broke the path in two, so
 * neither half was renamed and an agent was told where the identity is.
 */
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

test("an identity path with a quote is named <identity file> in a hint's quoted command too", async () => {
  const home = join(tempDir(), "o'brien");
  mkdirSync(home);
  const identity = join(home, "id.txt");
  expect(Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode).toBe(0);
  const data = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
  expect((await rta(["kv", "set", "k1"], { stdin: "value-one", env })).code).toBe(0);
  chmodSync(identity, 0o644);
  const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env });
  try {
    const listed = resultJson(await s.client.callTool({ name: "kv_list", arguments: {} }));
    expect(listed).toEqual({
      type: "error",
      code: "kv.identity.mode",
      message: "the identity file <identity file> may be read or written by others (mode 0644)",
      hint: "narrow it to its owner: chmod 600 '<identity file>'",
    });
  } finally {
    await s.close();
  }
});
