/**
 * End to end: what the gate keeps, reached where the gate does not look by
 * name. fs.rm --recursive walks down from an ordinary directory: rta's data
 * dir bind-mounted below it, or a git dir inside it, would be emptied on the
 * way. A bind mount gives the way to a place not made yet a second name. And
 * the kernel's trees are /proc and /sys only by their usual names: a chroot or
 * a container's root under a root can have them mounted inside it. An rta
 * data dir the server was not started with (a backup, a second server's) holds
 * the same record key and grants, and is known by what it holds.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_REMOVE_DEPTH } from "../../src/gate/paths/removal.ts";
import { canBindMount, tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

function canMount(type: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = tempDir();
  if (Bun.spawnSync(["mount", "-t", type, type, probe]).exitCode !== 0) return false;
  Bun.spawnSync(["umount", probe]);
  return true;
}

async function server(root: string, data: string) {
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
  expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
  const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
  const call = async (name: string, args: Record<string, unknown>) =>
    resultJson(await s.client.callTool({ name, arguments: args }));
  return { ...s, call };
}

describe("fs.rm --recursive above what the gate keeps", () => {
  // Root may bind-mount here (the tests run as root); where it may not, there is no second name to test.
  test.skipIf(!canBindMount())(
    "a tree holding rta's data dir by a bind mount is refused, and nothing in it is removed",
    async () => {
      const root = realpathSync(tempDir());
      const data = realpathSync(tempDir());
      const s = await server(root, data);
      const mount = join(root, "work/cache/mnt");
      mkdirSync(mount, { recursive: true });
      writeFileSync(join(root, "work/a.txt"), "a");
      expect(Bun.spawnSync(["mount", "--bind", data, mount]).exitCode).toBe(0);
      try {
        // the record's files are made at a session's first call: make one, so all of them are there to be kept
        await s.call("sys_info", {});
        const before = readdirSync(data).sort();
        expect(before).toEqual(expect.arrayContaining(["agent-log.jsonl", "gate.db", "record.key"]));
        expect((await s.call("fs_rm", { path: "work", recursive: true })).code).toBe("core.path.withheld");
        expect((await s.call("fs_rm", { path: "work/cache", recursive: true })).code).toBe("core.path.withheld");
        expect(readdirSync(data).sort()).toEqual(before);
        expect(existsSync(join(root, "work/a.txt"))).toBe(true);
      } finally {
        await s.close();
        Bun.spawnSync(["umount", mount]);
      }
    },
    30_000,
  );

  test("a tree holding a git dir is refused, and nothing in it is removed; one without is removed", async () => {
    const root = realpathSync(tempDir());
    const s = await server(root, tempDir());
    for (const dir of ["proj/.git/objects", "proj/.git/refs", "vendored/lib.git/objects", "vendored/lib.git/refs"])
      mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, "proj/.git/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "vendored/lib.git/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "proj/a.txt"), "a");
    mkdirSync(join(root, "build/out"), { recursive: true });
    writeFileSync(join(root, "build/out/x.o"), "x");
    try {
      expect((await s.call("fs_rm", { path: "proj", recursive: true })).code).toBe("core.path.withheld");
      expect((await s.call("fs_rm", { path: "vendored", recursive: true })).code).toBe("core.path.withheld");
      expect(existsSync(join(root, "proj/a.txt"))).toBe(true);
      expect(existsSync(join(root, "proj/.git/HEAD"))).toBe(true);
      expect(existsSync(join(root, "vendored/lib.git/HEAD"))).toBe(true);
      expect(await s.call("fs_rm", { path: "build", recursive: true })).toMatchObject({ value: { removed: 3 } });
      expect(existsSync(join(root, "build"))).toBe(false);
    } finally {
      await s.close();
    }
  }, 30_000);
});

describe("the way to a place not made yet, reached by a bind mount", () => {
  // ~/.config exists, ~/.config/rta not yet; the operator's ~/.config is bind-mounted under the root.
  test.skipIf(!canBindMount())(
    "no config dir is made, moved or written there by the mount's name",
    async () => {
      const root = realpathSync(tempDir());
      const home = realpathSync(tempDir());
      mkdirSync(join(home, ".config"));
      const data = tempDir();
      const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(home, ".config/rta") };
      expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
      const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
      const call = async (name: string, args: Record<string, unknown>) =>
        resultJson(await s.client.callTool({ name, arguments: args }));
      const mount = join(root, "dotfiles");
      mkdirSync(mount);
      mkdirSync(join(root, "stage/rta"), { recursive: true });
      writeFileSync(join(root, "stage/rta/config.toml"), 'roots = ["/"]\n');
      expect(Bun.spawnSync(["mount", "--bind", join(home, ".config"), mount]).exitCode).toBe(0);
      try {
        const cases: [string, Record<string, unknown>][] = [
          ["fs_mkdir", { path: "dotfiles/rta" }],
          ["fs_mkdir", { path: "dotfiles/rta/sub", parents: true }],
          ["fs_write", { path: "dotfiles/rta", content: "x" }],
          ["fs_move", { from: "stage/rta", to: "dotfiles/rta" }],
        ];
        for (const [name, args] of cases)
          expect([name, args, (await call(name, args)).code]).toEqual([name, args, "core.path.withheld"]);
        expect(existsSync(join(home, ".config/rta"))).toBe(false);
        // beside it, the mount is written as any dir
        expect(await call("fs_mkdir", { path: "dotfiles/nvim" })).toMatchObject({ value: { created: true } });
      } finally {
        await s.close();
        Bun.spawnSync(["umount", mount]);
      }
    },
    30_000,
  );
});

describe("a place mounted over while the server runs", () => {
  // The places are worked out again only when a directory looked in changed; a mount over the config dir itself
  // changes no directory's ctime, but gives the config dir's path another inode: the one under the root.
  test.skipIf(!canBindMount())(
    "a dir under the root bound over the config dir is withheld from the next call",
    async () => {
      const root = realpathSync(tempDir());
      mkdirSync(join(root, "team"));
      writeFileSync(join(root, "team/policy.toml"), "# the team's\n");
      const config = realpathSync(tempDir());
      const data = tempDir();
      const env = { HOME: tempDir(), RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
      expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
      const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
      const call = async (name: string, args: Record<string, unknown>) =>
        resultJson(await s.client.callTool({ name, arguments: args }));
      // the places are kept once every directory looked in last changed well before (the home apart from the data
      // dir, which each call writes in): read twice, kept the second
      await Bun.sleep(300);
      for (let i = 0; i < 2; i++)
        expect(await call("fs_read", { path: "team/policy.toml" })).toEqual({ type: "text", text: "# the team's\n" });
      expect(Bun.spawnSync(["mount", "--bind", join(root, "team"), config]).exitCode).toBe(0);
      try {
        expect((await call("fs_read", { path: "team/policy.toml" })).code).toBe("core.path.withheld");
        expect((await call("fs_write", { path: "team/policy.toml", content: "[ceiling]\n" })).code).toBe(
          "core.path.withheld",
        );
        expect(readFileSync(join(root, "team/policy.toml"), "utf8")).toBe("# the team's\n");
      } finally {
        await s.close();
        Bun.spawnSync(["umount", "-l", config]);
      }
    },
    30_000,
  );
});

describe("the kernel's trees mounted under a root", () => {
  test.skipIf(!canMount("proc") || !canMount("sysfs"))(
    "a proc and a sysfs in a chroot are withheld by that name, and a walk passes them by",
    async () => {
      const root = realpathSync(tempDir());
      const s = await server(root, tempDir());
      const proc = join(root, "chroot/proc");
      const sys = join(root, "chroot/sys");
      mkdirSync(proc, { recursive: true });
      mkdirSync(sys);
      writeFileSync(join(root, "chroot/hostname"), "box\n");
      expect(Bun.spawnSync(["mount", "-t", "proc", "proc", proc]).exitCode).toBe(0);
      expect(Bun.spawnSync(["mount", "-t", "sysfs", "sysfs", sys]).exitCode).toBe(0);
      try {
        const cases: [string, Record<string, unknown>][] = [
          ["fs_read", { path: "chroot/proc/self/status" }],
          ["fs_read", { path: "chroot/proc/self/maps" }],
          ["fs_hash", { path: "chroot/proc/self/environ" }],
          ["fs_list", { path: "chroot/proc/self/fd" }],
          ["fs_stat", { path: "chroot/proc" }],
          ["fs_list", { path: "chroot/sys/kernel" }],
          ["log_tail", { path: "chroot/proc/self/mountinfo" }],
          ["fs_write", { path: "chroot/proc/sys/kernel/hostname", content: "x", mode: "overwrite" }],
        ];
        for (const [name, args] of cases)
          expect([name, args, (await s.call(name, args)).code]).toEqual([name, args, "core.path.withheld"]);
        const grep = await s.call("fs_grep", { path: "chroot", pattern: "VmPeak|rta" });
        expect(grep).toMatchObject({ type: "table", rows: [] });
        const found = await s.call("fs_find", { path: "chroot", name: "*", depth: 3 });
        expect((found.rows as unknown[][]).map((r) => r[0])).toEqual(["chroot/hostname"]);
      } finally {
        await s.close();
        Bun.spawnSync(["umount", proc]);
        Bun.spawnSync(["umount", sys]);
      }
    },
    30_000,
  );
});

describe("an rta data dir this server does not use", () => {
  // A backup of the data dir holds the live record's key; a second server's holds its grants and locks.
  test("is known by what it holds: not read, written, moved or removed", async () => {
    const root = realpathSync(tempDir());
    const other = join(root, "backup/rta-data");
    const otherEnv = { RTA_DATA_DIR: other, RTA_CONFIG_DIR: tempDir() };
    expect((await rta(["grant", "allow", "fs", "--agent", "bob", "--ttl", "10m"], { env: otherEnv })).code).toBe(0);
    const second = await connect("modern", ["--agent", "bob", "--root", tempDir()], {
      dataDir: other,
      env: otherEnv,
    });
    await second.close(); // its record and key are written
    // run/ holds the server's operator socket while it runs
    expect(readdirSync(other).sort()).toEqual(["agent-log.jsonl", "gate.db", "record.checkpoint", "record.key", "run"]);
    const s = await server(root, tempDir());
    try {
      const cases: [string, Record<string, unknown>][] = [
        ["fs_read", { path: "backup/rta-data/record.key" }],
        ["fs_read", { path: "backup/rta-data/agent-log.jsonl" }],
        ["fs_hash", { path: "backup/rta-data/gate.db" }],
        ["fs_list", { path: "backup/rta-data" }],
        ["fs_write", { path: "backup/rta-data/record.key", content: "k", mode: "overwrite" }],
        ["fs_rm", { path: "backup/rta-data/gate.db" }],
        ["fs_move", { from: "backup/rta-data", to: "loot" }],
        ["fs_rm", { path: "backup/rta-data", recursive: true }],
        ["fs_rm", { path: "backup", recursive: true }],
        // nor is a dir made one: the root itself would be kept from every agent
        ["fs_write", { path: "record.key", content: "k" }],
        ["fs_mkdir", { path: "gate.db" }],
        ["fs_mkdir", { path: "sub/record.key/x", parents: true }],
      ];
      for (const [name, args] of cases)
        expect([name, args, (await s.call(name, args)).code]).toEqual([name, args, "core.path.withheld"]);
      const grep = await s.call("fs_grep", { path: "backup", pattern: "session|bob" });
      expect(grep).toMatchObject({ type: "table", rows: [] });
      // run/ holds the server's operator socket while it runs
      expect(readdirSync(other).sort()).toEqual([
        "agent-log.jsonl",
        "gate.db",
        "record.checkpoint",
        "record.key",
        "run",
      ]);
    } finally {
      await s.close();
    }
  }, 30_000);
});

describe("fs.rm --recursive of a tree nested deeper than a removal goes", () => {
  // Each level holds a descriptor while the removal is in it; tens of thousands of levels took them all.
  test("is refused before anything is removed", async () => {
    const root = realpathSync(tempDir());
    const s = await server(root, tempDir());
    mkdirSync(join(root, `deep/${"a/".repeat(MAX_REMOVE_DEPTH + 10)}`), { recursive: true });
    mkdirSync(join(root, `shallow/${"a/".repeat(MAX_REMOVE_DEPTH - 2)}`), { recursive: true });
    try {
      expect((await s.call("fs_rm", { path: "deep", recursive: true })).code).toBe("core.path.invalid");
      expect(existsSync(join(root, "deep/a/a/a"))).toBe(true);
      expect(await s.call("fs_rm", { path: "shallow", recursive: true })).toMatchObject({
        value: { removed: MAX_REMOVE_DEPTH - 1 },
      });
    } finally {
      await s.close();
    }
  }, 30_000);
});
