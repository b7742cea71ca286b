/**
 * Git dirs, recognised by what they hold rather than by their name: a bare
 * repository (`proj.git`), the target of a worktree's or a submodule's
 * `gitdir:` file, and a `$GIT_DIR` kept anywhere are all git dirs, and git
 * runs their hooks and the commands their config names (core.fsmonitor,
 * credential helpers) as whoever uses them. So a git dir of any name gets the
 * rules `.git` has: nothing in it is written, and the files in it that can
 * carry credentials are not read.
 *
 * The test is git's own (setup.c, is_git_directory): HEAD, with objects/ and
 * refs/, or a commondir file in their place (a linked worktree's dir). It is
 * asked of an opened descriptor, so it looks at the directory the gate is in,
 * not at a path that could be swapped meanwhile.
 */
import { closeSync, constants, openSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { holds, inFd, O_PATH } from "./procFd.ts";

/** The name git gives the dir it keeps in a work tree; a write to it, file or dir, is refused by name alone. */
export const GIT_DIR_NAME = ".git";

/** The entries whose presence together makes a directory a git dir. */
const MARKS = ["HEAD", "objects", "refs", "commondir"] as const;

function gitShaped(present: (name: string) => boolean): boolean {
  return present("HEAD") && ((present("objects") && present("refs")) || present("commondir"));
}

/** Whether a directory (by a path that names it, e.g. `/proc/self/fd/<fd>`) is a git dir. */
export function isGitDir(dir: string): boolean {
  return gitShaped((name) => holds(dir, name));
}

/** Whether `name` is one of the entries that together make a directory a git dir. */
export function isGitMark(name: string): boolean {
  return (MARKS as readonly string[]).includes(name);
}

/** Whether adding `name` to a directory that is not a git dir would make it one. */
export function wouldBecomeGitDir(dir: string, name: string): boolean {
  if (!isGitMark(name)) return false;
  return gitShaped((n) => n === name || holds(dir, n));
}

/**
 * Whether a directory or any directory above it, by its real path, is a git
 * dir: by name or by what it holds. Asked only above the root a walk starts
 * at, where the gate has opened nothing to ask instead.
 */
export function underGitDir(real: string): boolean {
  for (let p = real; p !== dirname(p); p = dirname(p)) {
    if (p.endsWith(`/${GIT_DIR_NAME}`) || isGitDir(p)) return true;
  }
  return false;
}

/**
 * Whether an existing entry (`<dir>/<name>`, as the path gate names it) is a
 * git dir: opened without following a link, and asked of what was opened.
 */
export function isGitDirEntry(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return false; // not a directory (any more): nothing of git's to carry off
  }
  try {
    return isGitDir(inFd(fd));
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a file named `name`, in a directory named `parent`, can carry git
 * credentials: the stores git keeps beside a home (~/.git-credentials and the
 * XDG one, <config>/git/credentials), and config or credentials files in a
 * git dir, at any depth (submodules and worktrees keep their own). Whether it
 * is in a git dir is asked only for those names.
 */
export function canCarryGitSecret(parent: string | undefined, name: string, inGitDir: () => boolean): boolean {
  if (name === ".git-credentials" || (name === "credentials" && parent === "git")) return true;
  const secret = name === "config" || name === "credentials" || name.startsWith("config.");
  return secret && inGitDir();
}

/**
 * The same for a file a walk came to, by a path naming its opened directory
 * (asked through the descriptor) and its real path (the directories above,
 * which the walk has closed, asked by path).
 */
export function isGitSecretFile(dir: string, real: string): boolean {
  const parts = real.split("/");
  const inGitDir = () => parts.includes(GIT_DIR_NAME) || isGitDir(dir) || underGitDir(dirname(real));
  return canCarryGitSecret(parts[parts.length - 2], parts[parts.length - 1] as string, inGitDir);
}

/**
 * git's own config beside a home, which every git command reads: ~/.gitconfig
 * and $XDG_CONFIG_HOME/git (config, credentials). Either can name a command
 * git runs (core.fsmonitor, core.hooksPath, a credential helper) and carry a
 * token (url.<base>.insteadOf), so the gate guards them as it guards rta's
 * own places: not read, and not written, moved or planted.
 */
export function gitGlobalConfig(env: Record<string, string | undefined>): string[] {
  const home = env.HOME;
  if (!home || !isAbsolute(home)) return [];
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, ".config");
  // and the home's own, which git reads wherever XDG_CONFIG_HOME is not set (a shell, cron, a hook)
  return [...new Set([join(home, ".gitconfig"), join(xdg, "git"), join(home, ".config", "git")])];
}
