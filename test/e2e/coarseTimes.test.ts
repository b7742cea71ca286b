/**
 * End to end: rta's places kept between calls (placesMemo.ts) on a file
 * system that keeps times to the whole second (ext4 made with 128-byte
 * inodes, ext3, HFS+). There a change made after a working-out can have the
 * very ctime of one made before it, however long before in that second. A
 * person who moves the config dir into a root and links it back from where
 * it was changes its parent twice: an agent's call between the two must not
 * leave the server sure the config dir is still where it was. And config
 * and policy, read again only when a look at them shows an edit: a second
 * edit of the same size in the second of the first, or one whose mtime was
 * set back, is an edit too.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RECHECK_MS } from "../../src/core/recheck.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted) Bun.spawnSync(["umount", "-l", m]);
});

/** A fresh ext4 with 128-byte inodes (times to the second) mounted from a file, or undefined where root may not. */
function secondsFs(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = tempDir();
  const image = join(dir, "fs.img");
  const mount = join(dir, "mnt");
  mkdirSync(mount);
  const ran = (cmd: string[]) => {
    try {
      return Bun.spawnSync(cmd, { stderr: "ignore" }).exitCode === 0;
    } catch {
      return false; // no such program here
    }
  };
  if (!ran(["truncate", "-s", "16M", image]) || !ran(["mkfs.ext4", "-q", "-F", "-I", "128", image])) return undefined;
  if (!ran(["mount", "-o", "loop", image, mount])) return undefined;
  mounted.push(mount);
  return mount;
}

const fs = secondsFs();

/** Waits for a moment 200..600 ms into a second: two changes made from there on share their second. */
async function earlyInASecond(): Promise<void> {
  const start = Math.floor(Date.now() / 1000);
  for (;;) {
    const now = Date.now();
    if (Math.floor(now / 1000) > start && now % 1000 >= 200 && now % 1000 < 600) return;
    await Bun.sleep(20);
  }
}

test.skipIf(fs === undefined)(
  "a config dir moved into a root and linked back within one second is withheld there",
  async () => {
    const m = fs as string;
    const work = join(m, "work");
    const parent = join(m, "home/.config");
    const config = join(parent, "rta");
    mkdirSync(work);
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "policy.toml"), "never = []\n");
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: config };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", work], { dataDir: env.RTA_DATA_DIR, env });
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      let tried = false;
      for (let attempt = 0; attempt < 10 && !tried; attempt++) {
        await earlyInASecond();
        const moved = join(work, `conf${attempt}`);
        renameSync(config, moved);
        const first = statSync(parent).ctimeMs;
        // the agent's call between the two changes works the places out again
        expect(await call("fs_list", { path: "." })).toMatchObject({ type: "table" });
        symlinkSync(moved, config);
        if (statSync(parent).ctimeMs !== first) {
          // the second change fell in the next second: undo, and try again
          rmSync(config);
          renameSync(moved, config);
          continue;
        }
        tried = true;
        expect((await call("fs_read", { path: `conf${attempt}/policy.toml` })).code).toBe("core.path.withheld");
        expect(
          (await call("fs_write", { path: `conf${attempt}/policy.toml`, content: "max_uses = 1000\n" })).code,
        ).toBe("core.path.withheld");
      }
      expect(tried).toBe(true);
    } finally {
      await s.close();
    }
  },
  60_000,
);

test.skipIf(fs === undefined)(
  "a policy edited twice within one second, to the same size, holds as last written",
  async () => {
    const m = fs as string;
    const work = join(m, "work2");
    const config = join(m, "config2");
    mkdirSync(work);
    mkdirSync(config);
    const policy = join(config, "policy.toml");
    writeFileSync(policy, "never = []\n");
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: config };
    expect((await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", work], { dataDir: env.RTA_DATA_DIR, env });
    let n = 0;
    const write = async () =>
      resultJson(await s.client.callTool({ name: "fs_write", arguments: { path: `a${n++}.txt`, content: "a" } }));
    try {
      let tried = false;
      for (let attempt = 0; attempt < 10 && !tried; attempt++) {
        writeFileSync(policy, "never = []\n");
        await earlyInASecond();
        writeFileSync(policy, 'never = ["fs.mkdir"]\n');
        const first = statSync(policy).mtimeMs;
        // waited past the bound a server looks at its policy by, never timed
        await Bun.sleep(RECHECK_MS + 50);
        expect(await write()).toMatchObject({ type: "object" });
        writeFileSync(policy, 'never = ["fs.write"]\n');
        if (statSync(policy).mtimeMs !== first) continue; // the second edit fell in the next second: try again
        tried = true;
        await Bun.sleep(RECHECK_MS + 50);
        expect((await write()).code).toBe("core.grant.ceiling");
      }
      expect(tried).toBe(true);
    } finally {
      await s.close();
    }
  },
  60_000,
);

test("a policy rewritten to the same size with its mtime set back, as cp -p or touch -r leave it, holds", async () => {
  const config = tempDir();
  const policy = join(config, "policy.toml");
  const past = new Date("2026-01-01T00:00:00Z");
  writeFileSync(policy, 'never = ["fs.mkdir"]\n');
  utimesSync(policy, past, past);
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: config };
  expect((await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
  const s = await connect("modern", ["--agent", "claude", "--root", tempDir()], { dataDir: env.RTA_DATA_DIR, env });
  let n = 0;
  const write = async () =>
    resultJson(await s.client.callTool({ name: "fs_write", arguments: { path: `a${n++}.txt`, content: "a" } }));
  try {
    expect(await write()).toMatchObject({ type: "object" });
    writeFileSync(policy, 'never = ["fs.write"]\n');
    utimesSync(policy, past, past);
    // waited past the bound a server looks at its policy by, never timed
    await Bun.sleep(RECHECK_MS + 50);
    expect((await write()).code).toBe("core.grant.ceiling");
  } finally {
    await s.close();
  }
});
