import { describe, expect, test } from "bun:test";
import { gitGlobalConfig } from "../../src/gate/paths/gitDirs.ts";

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
