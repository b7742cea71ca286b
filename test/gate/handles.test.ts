/**
 * The handles a capability is given (gate/paths/handles.ts), used as a
 * careless or hostile capability would: a name that is no name in the
 * directory, and an entry kept past the walk that came to it. Neither reaches
 * what the gate did not open. And a person's walk, which keeps the one rule
 * every walk keeps: git's credential files are passed by.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DirHandle, WalkEntry } from "../../src/core/access.ts";
import { Pacer } from "../../src/core/pacer.ts";
import type { ReadPath } from "../../src/gate/paths/handles.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules, PERSON_RULES } from "../../src/gate/paths/rules.ts";
import { closeGated } from "../../src/gate/paths/stage.ts";
import { tempDir } from "../support/fixtures.ts";

let base = "";
let opened: ReadPath;
let dir: DirHandle;

beforeEach(() => {
  base = realpathSync(tempDir());
  mkdirSync(join(base, "root/in"), { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "root/in/file.txt"), "inside\n");
  writeFileSync(join(base, "outside/secret.txt"), "outside\n");
  const gate = new PathGate(
    [join(base, "root")],
    agentRules({ data: join(base, "data"), config: join(base, "config") }),
  );
  opened = gate.open("in", "read") as ReadPath;
  dir = opened.dir() as DirHandle;
});

afterEach(() => closeGated(opened));

describe("a directory handle's entry", () => {
  test("is only a name in that directory: a path that climbs out of it is no entry", () => {
    expect(dir.entry("file.txt")?.stat.isFile()).toBe(true);
    for (const name of ["..", ".", "", "../../outside", "../../outside/secret.txt", "/etc", "x/../file.txt"])
      expect(dir.entry(name)).toBeUndefined();
  });
});

describe("an entry a walk came to", () => {
  test("opens its file while the visitor runs, and nothing once the walk has moved on", async () => {
    const kept: WalkEntry[] = [];
    let during = "";
    await dir.walk(1, new Pacer(new AbortController().signal, "walking"), (e) => {
      kept.push(e);
      const file = e.openFile();
      during = file?.read(0, 100).toString() ?? "";
      file?.close();
      return true;
    });
    expect(during).toBe("inside\n");
    expect(kept[0]?.openFile()).toBeUndefined();
  });
});

describe("a person's walk", () => {
  test("passes git's credential files by, as an agent's does; the files beside them are opened", async () => {
    mkdirSync(join(base, "root/in/.git"));
    writeFileSync(join(base, "root/in/.git/config"), "[core]\n\tpassword = hunter2\n");
    writeFileSync(join(base, "root/in/.git/description"), "a repository\n");
    const person = new PathGate([join(base, "root")], PERSON_RULES).open("in", "read") as ReadPath;
    try {
      const opened: string[] = [];
      await (person.dir() as DirHandle).walk(2, new Pacer(new AbortController().signal, "walking"), (e) => {
        if (!e.stat.isFile()) return true;
        const file = e.openFile();
        if (file !== undefined) opened.push(e.rel);
        file?.close();
        return true;
      });
      expect(opened).toEqual([".git/description", "file.txt"]);
    } finally {
      closeGated(person);
    }
  });
});

describe("a walk under a person's rules", () => {
  test("opens the work tree's files but none that can carry git's credentials", async () => {
    const repo = join(base, "repo");
    mkdirSync(join(repo, ".git/objects"), { recursive: true });
    mkdirSync(join(repo, ".git/refs"));
    writeFileSync(join(repo, ".git/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(repo, ".git/config"), "[remote] url = https://u:p@example.test\n");
    writeFileSync(join(repo, ".git-credentials"), "https://u:p@example.test\n");
    writeFileSync(join(repo, "notes.txt"), "notes\n");
    const top = new PathGate(["/"], PERSON_RULES).open(repo, "read") as ReadPath;
    const opened: string[] = [];
    try {
      await (top.dir() as DirHandle).walk(3, new Pacer(new AbortController().signal, "walking"), (e) => {
        const file = e.stat.isFile() ? e.openFile() : undefined;
        if (file) opened.push(e.rel);
        file?.close();
        return true;
      });
    } finally {
      closeGated(top);
    }
    expect(opened).toEqual([".git/HEAD", "notes.txt"]);
  });
});
