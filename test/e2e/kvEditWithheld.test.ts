/**
 * End to end: the plaintext `rta kv edit` hands the editor, and a temporary
 * identity `rta keys new|import` writes, hold secrets an agent has no grant
 * for: withheld by their names from an agent whose root covers the temp dir
 * they are in, while the edit runs and after a SIGKILL left them.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { editWaiting, storeHome } from "../support/kvEditing.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

const VALUE = "TOPSECRET-edit-value";

test("an agent whose root holds kv edit's plaintext dir reads, lists and finds nothing of it", async () => {
  const { env } = await storeHome(VALUE);
  const data = env.RTA_DATA_DIR as string;
  const { child, editorPid, file } = await editWaiting(env);
  const editDir = dirname(file);
  const scratch = dirname(editDir);
  const s = await connect("legacy", ["--agent", "x", "--root", scratch], { dataDir: data, env });
  try {
    for (const [name, args] of [
      ["fs_read", { path: file }],
      ["fs_hash", { path: file }],
      ["fs_list", { path: editDir }],
    ] as const) {
      const out = resultJson(await s.client.callTool({ name, arguments: args }));
      expect(out.code).toBe("core.path.withheld");
    }
    const grep = resultJson(
      await s.client.callTool({ name: "fs_grep", arguments: { pattern: "TOPSECRET", path: scratch } }),
    );
    expect(JSON.stringify(grep)).not.toContain(VALUE);
    const find = resultJson(await s.client.callTool({ name: "fs_find", arguments: { path: scratch, depth: 2 } }));
    expect(JSON.stringify(find)).not.toContain(editDir);
  } finally {
    await s.close();
    child.kill("SIGKILL");
    await child.exited;
    process.kill(Number(editorPid), "SIGKILL");
    await rta(["kv", "edit"], { env: { ...env, EDITOR: "true" } });
  }
}, 30_000);

test("a temporary identity a killed keys new left beside the identity is withheld from an agent whose root holds it", async () => {
  const root = tempDir();
  mkdirSync(join(root, "keys"), { mode: 0o700 });
  const identity = join(root, "keys", "id.txt");
  // what `rta keys new` killed between writing its temporary file and linking it leaves: a secret key of its own
  const left = join(root, "keys", ".rta-keys-4194303-1764600000000.tmp");
  writeFileSync(left, "AGE-SECRET-KEY-1LEFTOVERLEFTOVER\n", { mode: 0o600 });
  const data = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
  const s = await connect("modern", ["--agent", "x", "--root", root], { dataDir: data, env });
  try {
    expect(resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: left } })).code).toBe(
      "core.path.withheld",
    );
    const grep = resultJson(
      await s.client.callTool({ name: "fs_grep", arguments: { pattern: "AGE-SECRET", path: root } }),
    );
    expect(JSON.stringify(grep)).not.toContain("LEFTOVER");
    // its name is listed, as the identity's own is; what it holds is never read
  } finally {
    await s.close();
  }
});

test("an agent with a grant to move cannot name a dir of its root as a killed kv edit's, for rta doctor to remove", async () => {
  const root = tempDir();
  mkdirSync(join(root, "project"));
  writeFileSync(join(root, "project", "work.txt"), "a day's work");
  const data = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), HOME: tempDir() };
  expect((await rta(["grant", "allow", "fs.move", "--agent", "x", "--ttl", "10m", "--yes"], { env })).code).toBe(0);
  // a pid no process has: what a killed rta kv edit's dir is named with
  const dead = Number(Bun.spawnSync(["sh", "-c", "echo $$"], { stdout: "pipe" }).stdout.toString().trim());
  const s = await connect("legacy", ["--agent", "x", "--root", root], { dataDir: data, env });
  try {
    const moved = resultJson(
      await s.client.callTool({
        name: "fs_move",
        arguments: { from: join(root, "project"), to: join(root, `rta-kv-edit-${dead}-aB3dE9`) },
      }),
    );
    expect(moved.code).toBe("core.path.withheld");
  } finally {
    await s.close();
  }
  // the person's sweep of the temp dir then finds nothing of the agent's making
  await rta(["doctor"], { env: { ...env, TMPDIR: root } });
  expect(existsSync(join(root, "project", "work.txt"))).toBe(true);
});
