/**
 * The adversarial corpus: every case names the exact code (or "ok") it must get.
 * The tree is made fresh in a temp dir; nothing outside it is touched, and the
 * /proc cases only open what the kernel shows this test process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GatedPath, PathIntent } from "../../src/core/access.ts";
import { ownPlacesNow, touchesPlace } from "../../src/gate/paths/ownPlaces.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { withheld } from "../../src/gate/paths/rules.ts";
import { closeGated } from "../../src/gate/paths/stage.ts";
import { canBindMount, tempDir } from "../support/fixtures.ts";

let base = "";
let root = "";
let root2 = "";
let gate: PathGate;
let slash: PathGate;
const opened: GatedPath[] = [];

beforeAll(() => {
  base = realpathSync(tempDir());
  root = join(base, "root");
  root2 = join(base, "root2");
  const f = (p: string, body = "x") => {
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, body);
  };
  f(join(root, "a/b/file.txt"), "deep");
  f(join(root, "file.txt"), "top");
  f(join(root, "café.txt"));
  f(join(root, ".git/config"), "[remote] url = https://user:token@example.test/x");
  f(join(root, ".git/HEAD"), "ref: refs/heads/main");
  f(join(root, ".git/hooks/pre-commit"), "#!/bin/sh");
  f(join(root, ".git-credentials"), "https://u:p@example.test");
  // git dirs by what they hold: a bare repo, a linked worktree's dir, one half made
  f(join(root, "bare.git/HEAD"), "ref: refs/heads/main");
  f(join(root, "bare.git/config"), "[credential] helper = store");
  f(join(root, "bare.git/hooks/pre-receive"), "#!/bin/sh");
  mkdirSync(join(root, "bare.git/objects"));
  mkdirSync(join(root, "bare.git/refs"));
  f(join(root, "linked/HEAD"), "ref: refs/heads/wt");
  f(join(root, "linked/commondir"), "../..");
  f(join(root, "linked/config.worktree"), "[core] fsmonitor = x");
  f(join(root, "half/HEAD"), "ref: refs/heads/main");
  mkdirSync(join(root, "half/objects"));
  symlinkSync("bare.git", join(root, "bare-link"));
  f(join(root, "data/agent-log.jsonl"), "{}");
  f(join(root, "config/policy.toml"), "");
  f(join(base, "root_evil/secret.txt"), "evil");
  f(join(base, "outside/secret.txt"), "secret");
  f(join(root2, "x.txt"), "two");
  symlinkSync("a/b", join(root, "link-in"));
  symlinkSync(join(root, "a"), join(root, "link-in-abs"));
  symlinkSync("/etc", join(root, "link-out"));
  symlinkSync("../outside", join(root, "link-out-rel"));
  symlinkSync("chain2", join(root, "chain1"));
  symlinkSync("../outside/secret.txt", join(root, "chain2"));
  symlinkSync("chain-in2", join(root, "chain-in1"));
  symlinkSync("a/b/file.txt", join(root, "chain-in2"));
  symlinkSync("loop2", join(root, "loop1"));
  symlinkSync("loop1", join(root, "loop2"));
  symlinkSync("self", join(root, "self"));
  symlinkSync("a/../..", join(root, "up-link"));
  symlinkSync(join(root, "data"), join(root, "data-link"));
  symlinkSync("/proc/self", join(root, "proc-link"));
  symlinkSync(join(root, "file.txt"), join(root2, "into-root1"));
  linkSync(join(base, "outside/secret.txt"), join(root, "hard.txt"));
  gate = new PathGate([root, root2], {
    withheld: [join(root, "data"), join(root, "config")],
    hardlinks: false,
    git: true,
    system: true,
  });
  slash = new PathGate(["/"], { withheld: [], hardlinks: false, git: true, system: true });
});

afterAll(() => {
  for (const p of opened) closeGated(p);
});

function outcome(g: PathGate, sent: string, intent: PathIntent): string {
  try {
    opened.push(g.open(sent, intent));
    return "ok";
  } catch (err) {
    return (err as { code: string }).code;
  }
}

type Case = [sent: string | (() => string), intent: PathIntent, expected: string];

const cases: Case[] = [
  // plain paths
  ["file.txt", "read", "ok"],
  ["a/b/file.txt", "read", "ok"],
  ["./a/./b/../b/file.txt", "read", "ok"],
  ["a//b///file.txt", "read", "ok"],
  ["a/b/", "read", "ok"],
  ["", "read", "ok"],
  [".", "read", "ok"],
  [() => join(root, "file.txt"), "read", "ok"],
  [() => root, "read", "ok"],
  [() => join(root2, "x.txt"), "read", "ok"],
  // .. in every position
  ["..", "read", "core.path.outside"],
  ["../outside/secret.txt", "read", "core.path.outside"],
  ["a/../../outside/secret.txt", "read", "core.path.outside"],
  ["a/b/../../../outside", "read", "core.path.outside"],
  ["a/b/../../..", "read", "core.path.outside"],
  ["./../root/file.txt", "read", "core.path.outside"],
  [() => `${root}/../outside/secret.txt`, "read", "core.path.outside"],
  ["../x", "write", "core.path.outside"],
  ["a/../../x", "write", "core.path.outside"],
  // the prefix case: a root and its _evil sibling
  ["../root_evil/secret.txt", "read", "core.path.outside"],
  [() => join(base, "root_evil/secret.txt"), "read", "core.path.outside"],
  [() => `${root}_evil/secret.txt`, "read", "core.path.outside"],
  [() => `${root}/../root_evil/secret.txt`, "read", "core.path.outside"],
  [() => `${root}_evil/new.txt`, "write", "core.path.outside"],
  // absolute paths elsewhere
  ["/etc/passwd", "read", "core.path.outside"],
  ["/", "read", "core.path.outside"],
  [() => join(base, "outside/secret.txt"), "read", "core.path.outside"],
  // symlinks inside, absolute and relative, chained
  ["link-in/file.txt", "read", "ok"],
  ["link-in-abs/b/file.txt", "read", "ok"],
  ["chain-in1", "read", "ok"],
  ["link-in/../b/file.txt", "read", "ok"],
  ["link-in/new.txt", "write", "ok"],
  // symlinks out, absolute and relative, chained and looping
  ["link-out", "read", "core.path.symlink"],
  ["link-out/passwd", "read", "core.path.symlink"],
  ["link-out-rel/secret.txt", "read", "core.path.symlink"],
  ["chain1", "read", "core.path.symlink"],
  ["up-link/outside/secret.txt", "read", "core.path.symlink"],
  ["link-out/new.txt", "write", "core.path.symlink"],
  [() => join(root2, "into-root1"), "read", "core.path.symlink"],
  ["loop1", "read", "core.path.symlink"],
  ["loop1/x", "read", "core.path.symlink"],
  ["self", "read", "core.path.symlink"],
  ["proc-link/environ", "read", "core.path.symlink"],
  // writing at a link's name replaces the link; it never writes where it points
  ["link-out", "write", "ok"],
  // hard links
  ["hard.txt", "read", "core.path.hardlink"],
  ["hard.txt", "write", "core.path.hardlink"],
  // rta's own dirs under a root, directly and through a link
  ["data", "read", "core.path.withheld"],
  ["data/agent-log.jsonl", "read", "core.path.withheld"],
  ["data/new.txt", "write", "core.path.withheld"],
  ["data-link/agent-log.jsonl", "read", "core.path.withheld"],
  ["config/policy.toml", "read", "core.path.withheld"],
  ["a/../config/policy.toml", "read", "core.path.withheld"],
  // .git
  [".git/config", "read", "core.path.withheld"],
  [".git/config", "write", "core.path.withheld"],
  [".git/hooks/pre-commit", "write", "core.path.withheld"],
  [".git/hooks/new-hook", "write", "core.path.withheld"],
  [".git/HEAD", "read", "ok"],
  [".git/hooks/pre-commit", "read", "ok"],
  [".git-credentials", "read", "core.path.withheld"],
  // a git dir of any name, known by what it holds
  ["bare.git/config", "read", "core.path.withheld"],
  ["bare-link/config", "read", "core.path.withheld"],
  ["bare.git/HEAD", "read", "ok"],
  ["bare.git/hooks/pre-receive", "read", "ok"],
  ["bare.git/hooks/pre-receive", "write", "core.path.withheld"],
  ["bare.git/hooks/new-hook", "write", "core.path.withheld"],
  ["bare-link/hooks/new-hook", "write", "core.path.withheld"],
  ["bare.git", "write", "core.path.withheld"],
  ["bare-link", "write", "ok"],
  ["linked/config.worktree", "read", "core.path.withheld"],
  ["linked/HEAD", "write", "core.path.withheld"],
  ["half/refs", "write", "core.path.withheld"],
  ["half/other", "write", "ok"],
  // NUL bytes, very long paths
  ["file.txt\0.png", "read", "core.path.invalid"],
  ["a\0/../../etc/passwd", "read", "core.path.invalid"],
  ["a".repeat(5000), "read", "core.path.invalid"],
  [`${"a/b/../../".repeat(400)}file.txt`, "read", "ok"],
  // Unicode lookalikes are other names, not dots or slashes
  ["café.txt", "read", "ok"],
  ["cafe\u0301.txt", "read", "fs.notfound"],
  ["\uff0e\uff0e/outside/secret.txt", "read", "fs.notfound"],
  ["\u2024\u2024/outside/secret.txt", "read", "fs.notfound"],
  ["..\u2215outside\u2215secret.txt", "read", "fs.notfound"],
  ["..\\outside\\secret.txt", "read", "fs.notfound"],
  ["%2e%2e/outside/secret.txt", "read", "fs.notfound"],
  // what is not there
  ["nothing.txt", "read", "fs.notfound"],
  ["nothing.txt", "write", "ok"],
  ["a/nothing/x.txt", "write", "fs.notfound"],
  ["file.txt/x", "read", "fs.notfound"],
  // a root itself cannot be written as a whole
  [".", "write", "core.path.outside"],
];

describe("the path gate: adversarial corpus", () => {
  test(`holds at least 60 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });
  for (const [sent, intent, expected] of cases) {
    const label =
      typeof sent === "string"
        ? JSON.stringify(sent.length > 60 ? `${sent.slice(0, 60)}...` : sent)
        : sent.toString().replace(/^\(\) => /, "");
    test(`${intent} ${label} -> ${expected}`, () => {
      expect(outcome(gate, typeof sent === "string" ? sent : sent(), intent)).toBe(expected);
    });
  }
});

describe("rta's own places, looked up when a path is opened", () => {
  test("a place that does not exist yet is withheld with the way to it, and follows a link put on that way later", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "elsewhere/a"), { recursive: true });
    const g = new PathGate([home], { withheld: [join(home, "cfg/a/rta")], hardlinks: false, git: true, system: true });
    expect(outcome(g, "cfg", "write")).toBe("core.path.withheld");
    expect(outcome(g, "cfg/a/rta/config.toml", "write")).toBe("core.path.withheld");
    expect(outcome(g, "other/x", "write")).toBe("fs.notfound");
    expect(outcome(g, "elsewhere/a/rta", "write")).toBe("ok");
    // someone links the missing parent to a dir that exists: the place is there now, not where it was first
    symlinkSync(join(home, "elsewhere"), join(home, "cfg"));
    expect(outcome(g, "elsewhere/a/rta", "write")).toBe("core.path.withheld");
    expect(outcome(g, "elsewhere/a", "write")).toBe("core.path.withheld");
    expect(outcome(g, "elsewhere", "write")).toBe("core.path.withheld");
    expect(outcome(g, "cfg", "write")).toBe("core.path.withheld");
    expect(outcome(g, "elsewhere/b", "write")).toBe("ok");
    mkdirSync(join(home, "elsewhere/a/rta"));
    expect(outcome(g, "elsewhere/a/rta", "read")).toBe("core.path.withheld");
    expect(outcome(g, "cfg/a/rta", "read")).toBe("core.path.withheld");
  });

  test("the identity file is known by its inode: a hard link to it is refused even where hard links are allowed", () => {
    const home = realpathSync(tempDir());
    const keys = realpathSync(tempDir());
    writeFileSync(join(keys, "identity.txt"), "AGE-SECRET-KEY-1X");
    linkSync(join(keys, "identity.txt"), join(home, "looks-harmless.txt"));
    const g = new PathGate([home], {
      withheld: [join(keys, "identity.txt")],
      hardlinks: true,
      git: true,
      system: true,
    });
    expect(outcome(g, "looks-harmless.txt", "read")).toBe("core.path.withheld");
    expect(outcome(g, "looks-harmless.txt", "write")).toBe("core.path.withheld");
  });

  // Root may bind-mount here (the tests run as root); where it may not, there is no second name to test.
  test.skipIf(!canBindMount())("a place bind-mounted under a root is withheld by that name too", () => {
    const home = realpathSync(tempDir());
    const data = realpathSync(tempDir());
    writeFileSync(join(data, "kv.age"), "secret");
    mkdirSync(join(home, "mnt"));
    expect(Bun.spawnSync(["mount", "--bind", data, join(home, "mnt")]).exitCode).toBe(0);
    try {
      const g = new PathGate([home], { withheld: [data], hardlinks: false, git: true, system: true });
      expect(outcome(g, "mnt/kv.age", "read")).toBe("core.path.withheld");
      expect(outcome(g, "mnt", "read")).toBe("core.path.withheld");
      expect(outcome(g, "mnt/new.txt", "write")).toBe("core.path.withheld");
      expect(outcome(g, "mnt", "write")).toBe("core.path.withheld");
      expect(withheld(g.rules, g.own(), join(home, "mnt"))).toBe(true);
    } finally {
      for (const p of opened.splice(0)) closeGated(p);
      Bun.spawnSync(["umount", join(home, "mnt")]);
    }
  });

  test("ownPlacesNow names each entry looked up on the way, through links, and where the place resolves", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "real"));
    symlinkSync("real", join(home, "link"));
    const own = ownPlacesNow([join(home, "link/missing/rta")], false);
    expect(own.inside).toContain(join(home, "real/missing/rta"));
    for (const e of ["link", "real", "real/missing", "real/missing/rta"]) expect(own.way).toContain(join(home, e));
    expect(touchesPlace(join(home, "real/missing"), own)).toBe(true);
    expect(touchesPlace(join(home, "real/other"), own)).toBe(false);
    expect(touchesPlace(join(home, "real/missing/rta/x"), own)).toBe(true);
  });
});

describe("the kernel's own trees, reached from a root of /", () => {
  for (const sent of [
    "/proc/self/environ",
    "/proc/self/root/etc/hostname",
    "/proc/self/cwd",
    "/proc/self/root",
    "/sys/kernel",
  ]) {
    test(`${sent} -> core.path.withheld`, () => {
      expect(outcome(slash, sent, "read")).toBe("core.path.withheld");
    });
  }
});

describe("what is opened", () => {
  test("a read hands back a descriptor on the file itself, and its place relative to the root", () => {
    const p = gate.open("link-in/file.txt", "read");
    opened.push(p);
    if (p.intent !== "read") throw new Error("expected a read");
    expect(p.rel).toBe("a/b/file.txt");
    expect(p.stat.isFile()).toBe(true);
  });

  test("a write hands back the parent directory and the name", () => {
    const p = gate.open("a/b/new.txt", "write");
    opened.push(p);
    if (p.intent !== "write") throw new Error("expected a write");
    expect(p.name).toBe("new.txt");
    expect(p.existing).toBeNull();
  });

  test("messages name the path as sent and nothing of rta's own layout", () => {
    try {
      gate.open("data-link/agent-log.jsonl", "read");
    } catch (err) {
      const e = err as { message: string; hint: string };
      expect(e.message).toBe('"data-link/agent-log.jsonl" is withheld from agents');
      expect(`${e.message} ${e.hint}`).not.toContain(root);
      return;
    }
    throw new Error("expected a refusal");
  });

  test("an unreadable root is reported with the fix, and other roots keep working", () => {
    const g = new PathGate([join(base, "missing-root"), root], {
      withheld: [],
      hardlinks: false,
      git: true,
      system: true,
    });
    expect(g.status()).toEqual([
      {
        path: join(base, "missing-root"),
        readable: false,
        problem: "it does not exist; create it, or stop serving it as a root",
      },
      { path: root, readable: true },
    ]);
    expect(outcome(g, "x", "read")).toBe("core.path.unreadable");
    expect(outcome(g, join(root, "file.txt"), "read")).toBe("ok");
  });
});

test("rta's temporary files of a secret are withheld from an agent by their names, and an editor's swap file of one", () => {
  const g = new PathGate([root], { withheld: [join(base, "data")], hardlinks: false, git: true, system: true });
  for (const p of [
    "/dev/shm/rta-kv-edit-4242-aB3dE9",
    "/dev/shm/rta-kv-edit-4242-aB3dE9/kv.txt",
    "/home/me/.local/state/nvim/swap/%dev%shm%rta-kv-edit-4242-aB3dE9%kv.txt.swp",
    "/home/me/.age/.rta-keys-4242-1764600000000.tmp",
  ])
    expect(withheld(g.rules, g.own(), p)).toBe(true);
  for (const p of ["/tmp/rta-kv-edit-notes", "/tmp/my-rta-kv-edit-4242-aB3dE9", "/home/me/.age/.rta-keys-4242.tmp"])
    expect(withheld(g.rules, g.own(), p)).toBe(false);
  // a person's own gate withholds nothing of it
  const person = new PathGate([root], { withheld: [], hardlinks: true, git: false, system: false });
  expect(withheld(person.rules, person.own(), "/dev/shm/rta-kv-edit-4242-aB3dE9/kv.txt")).toBe(false);
});
