/**
 * End to end: the plaintext `rta kv edit` hands the editor, and a temporary
 * identity `rta keys new|import` writes, hold secrets an agent has no grant
 * for: withheld by their names from an agent whose root covers the temp dir
 * they are in, while the edit runs and after a SIGKILL left them.
 */
import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";

const VALUE = "TOPSECRET-edit-value";

async function waitFor(path: string): Promise<void> {
  for (let i = 0; i < 1000 && !existsSync(path); i++) await Bun.sleep(10);
  if (!existsSync(path)) throw new Error(`${path} never came`);
}

test("an agent whose root holds kv edit's plaintext dir reads, lists and finds nothing of it", async () => {
  const identity = join(tempDir(), "id.txt");
  if (Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "pipe" }).exitCode !== 0) throw new Error("age-keygen");
  const data = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity, HOME: tempDir() };
  expect((await rta(["kv", "set", "deploy-key"], { stdin: VALUE, env })).code).toBe(0);
  const dir = tempDir();
  const seen = join(dir, "seen");
  const script = join(dir, "ed.sh");
  // says which file it was given, then waits as an editor a person has not left yet
  writeFileSync(
    script,
    `#!/bin/sh\nfor f; do :; done\nprintf '%s\\n%s\\n' "$$" "$f" > "${seen}.tmp"\nmv "${seen}.tmp" "${seen}"\nexec sleep 600\n`,
  );
  chmodSync(script, 0o755);
  const child = Bun.spawn([RTA, "kv", "edit"], {
    env: { PATH: process.env.PATH ?? "", ...env, EDITOR: script },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor(seen);
  const [editorPid, file] = (await Bun.file(seen).text()).trim().split("\n") as [string, string];
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
