/**
 * What the e2e tests of `rta kv edit` share: a store with one key in it, and
 * a kv edit whose editor waits (as a person who has not left it yet), so a
 * test can look at, or kill, what the edit holds.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./fixtures.ts";
import { RTA, rta } from "./rta.ts";

/** A data dir, a config dir and an identity made by age-keygen, as the env of a run, with `value` stored as deploy-key. */
export async function storeHome(value: string): Promise<{ identity: string; env: Record<string, string> }> {
  const identity = join(tempDir(), "id.txt");
  if (Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "pipe" }).exitCode !== 0) throw new Error("age-keygen");
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity, HOME: tempDir() };
  const set = await rta(["kv", "set", "deploy-key"], { stdin: value, env });
  if (set.code !== 0) throw new Error(`kv set: ${set.stderr}`);
  return { identity, env };
}

/** Resolves once `path` exists; throws after about ten seconds without it. */
export async function waitFor(path: string): Promise<void> {
  for (let i = 0; i < 1000 && !existsSync(path); i++) await Bun.sleep(10);
  if (!existsSync(path)) throw new Error(`${path} never came`);
}

/**
 * Starts `rta kv edit` under `env` with an editor that says which file it was
 * given and waits; resolves with the rta process, the editor's pid (which
 * outlives a killed rta: the caller ends it) and the plaintext file.
 */
export async function editWaiting(
  env: Record<string, string>,
): Promise<{ child: Bun.Subprocess; editorPid: string; file: string }> {
  const dir = tempDir();
  const seen = join(dir, "seen");
  const script = join(dir, "ed.sh");
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
  return { child, editorPid, file };
}
