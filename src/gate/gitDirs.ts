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
import { lstatSync } from "node:fs";
import { dirname } from "node:path";

/** The name git gives the dir it keeps in a work tree; a write to it, file or dir, is refused by name alone. */
export const GIT_DIR_NAME = ".git";

/** The entries whose presence together makes a directory a git dir. */
const MARKS = ["HEAD", "objects", "refs", "commondir"] as const;

function has(dir: string, name: string): boolean {
  try {
    lstatSync(`${dir}/${name}`);
    return true;
  } catch {
    return false;
  }
}

function gitShaped(present: (name: string) => boolean): boolean {
  return present("HEAD") && ((present("objects") && present("refs")) || present("commondir"));
}

/** Whether a directory (by a path that names it, e.g. `/proc/self/fd/<fd>`) is a git dir. */
export function isGitDir(dir: string): boolean {
  return gitShaped((name) => has(dir, name));
}

/** Whether adding `name` to a directory that is not a git dir would make it one. */
export function wouldBecomeGitDir(dir: string, name: string): boolean {
  if (!(MARKS as readonly string[]).includes(name)) return false;
  return gitShaped((n) => n === name || has(dir, n));
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

/** Names in a git dir (at any depth) that can carry credentials: config, config.worktree, credentials. */
export function isGitSecretInGitDir(name: string): boolean {
  return name === "config" || name === "credentials" || name.startsWith("config.");
}

/** The credential stores git keeps beside a home: ~/.git-credentials and the XDG one, <config>/git/credentials. */
export function isHomeGitSecret(parent: string | undefined, name: string): boolean {
  return name === ".git-credentials" || (name === "credentials" && parent === "git");
}
