/**
 * End to end: a grant pinned to a plugin's binary pays only for that binary's
 * code, however the file at the plugin's name is changed between the check of
 * a call and the start of the child that runs it.
 */
import { expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { installPlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

/** Resolves once `ok()` holds, looking again every few milliseconds. */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await Bun.sleep(10);
}

test("a binary swapped after a call's check and before its child starts never runs under the grant", async () => {
  const data = tempDir();
  const config = tempDir();
  const home = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: home };
  await installPlugin(fixture("queue"), data, env);
  expect((await rta(["grant", "allow", "queue", "--agent", "claude", "--ttl", "30m"], { env })).code).toBe(0);
  const s = await connect("modern", ["--agent", "claude"], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config, HOME: home },
  });
  try {
    // queue.hold holds the long-lived child; queue.mark is checked, recorded as running, and waits behind it
    const hold = s.client.callTool({ name: "queue_hold", arguments: {} });
    await until(() => existsSync(join(home, "holding")));
    const mark = s.client.callTool({ name: "queue_mark", arguments: {} });
    const log = join(data, "agent-log.jsonl");
    await until(
      () => existsSync(log) && readFileSync(log, "utf8").includes('"capability":"queue_mark","outcome":"run"'),
    );
    // the binary is replaced at its name (renamed over) while queue.mark waits
    const bin = join(data, "plugins", "rta-plugin-queue");
    const evil = join(data, "plugins", "evil");
    writeFileSync(evil, `#!/bin/sh\n: >"$HOME/pwned"\n`);
    chmodSync(evil, 0o700);
    renameSync(evil, bin);
    writeFileSync(join(home, "go"), "");
    expect(resultJson(await hold).code).toBe("core.plugin.failed");
    const marked = resultJson(await mark);
    expect(existsSync(join(home, "pwned"))).toBe(false);
    expect(marked.code).toBe("core.plugin.invalid");
  } finally {
    await s.close();
  }
}, 30_000);
