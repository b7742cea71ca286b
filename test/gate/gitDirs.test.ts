import { describe, expect, test } from "bun:test";
import { closeSync, constants, existsSync, mkdirSync, openSync, realpathSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { undoIfGitDir } from "../../src/gate/paths/confirm.ts";
import { gitGlobalConfig, isGitDir } from "../../src/gate/paths/gitDirs.ts";
import { tempDir } from "../support/fixtures.ts";

describe("git's config beside a home", () => {
  test("is ~/.gitconfig and ~/.config/git", () => {
    expect(gitGlobalConfig({ HOME: "/home/u" })).toEqual(["/home/u/.gitconfig", "/home/u/.config/git"]);
  });

  // git run where XDG_CONFIG_HOME is not set (a shell, cron, a hook) reads ~/.config/git whatever the server had
  test("with XDG_CONFIG_HOME set, both its git dir and the home's", () => {
    expect(gitGlobalConfig({ HOME: "/home/u", XDG_CONFIG_HOME: "/x" })).toEqual([
      "/home/u/.gitconfig",
      "/x/git",
      "/home/u/.config/git",
    ]);
  });

  test("nothing without an absolute home", () => {
    expect(gitGlobalConfig({ HOME: "relative" })).toEqual([]);
  });
});

describe("a git dir made by a write whose undo fails", () => {
  // Another server wrote into the objects dir this write made, between the make and the gate's look at it, so
  // removing it fails: the mark is taken out of the way instead, and the directory is no git dir.
  test("is refused, and the directory is no git dir after", () => {
    const d = join(realpathSync(tempDir()), "d");
    mkdirSync(join(d, "refs"), { recursive: true });
    writeFileSync(join(d, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(d, "config"), "[core]\n\tfsmonitor = ./planted.sh\n");
    mkdirSync(join(d, "objects"));
    writeFileSync(join(d, "objects/landed"), "the other server's\n");
    const fd = openSync(d, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      expect(() => undoIfGitDir(fd, "objects", "d/objects", () => rmdirSync(join(d, "objects")))).toThrow(
        "is in a git directory, or would make one",
      );
    } finally {
      closeSync(fd);
    }
    expect(isGitDir(d)).toBe(false);
    expect(existsSync(join(d, "objects"))).toBe(false);
  });
});
