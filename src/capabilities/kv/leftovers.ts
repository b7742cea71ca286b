/**
 * Temporary files that hold a secret, named so that one left by an rta killed
 * with SIGKILL (no handler runs then) is found and removed later: the kv
 * store's plaintext `rta kv edit` hands the editor (a private dir
 * `rta-kv-edit-<pid>-XXXXXX`, in /dev/shm where there is one), and the
 * identity `rta keys new` / `rta keys import` write beside its place
 * (`.rta-keys-<pid>-<ms>.tmp`). Only what this user owns is removed, and only
 * when the pid in its name runs no process: a live one may still be editing.
 */
import { accessSync, constants, lstatSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** `rta kv edit`'s private dir: the prefix, then the pid, then mkdtemp's six characters. */
const EDIT_DIR = /^rta-kv-edit-(\d+)-[A-Za-z0-9]{6}$/;
/** The identity's temporary file: the prefix, the pid, the time it was made. */
const IDENTITY_TEMP = /^\.rta-keys-(\d+)-\d+\.tmp$/;

/** Where `rta kv edit` makes its private dir: memory when the system has it, else the temp dir. */
export function scratchRoot(): string {
  try {
    if (statSync("/dev/shm").isDirectory()) {
      accessSync("/dev/shm", constants.W_OK);
      return "/dev/shm";
    }
  } catch {}
  return tmpdir();
}

/** The prefix `rta kv edit` gives mkdtemp for its private dir under `root`. */
export function editDirPrefix(root: string): string {
  return join(root, `rta-kv-edit-${process.pid}-`);
}

/** The name of a temporary identity file beside the identity at `identity`. */
export function identityTemp(identity: string): string {
  return join(dirname(identity), `.rta-keys-${process.pid}-${Date.now()}.tmp`);
}

/** Removes the private dirs killed `rta kv edit`s left, in /dev/shm and the temp dir; returns their paths. Refuses nothing. */
export function removeEditLeftovers(): string[] {
  const roots = [...new Set([scratchRoot(), tmpdir()])];
  return roots.flatMap((root) => removeLeftovers(root, EDIT_DIR, "dir"));
}

/** Removes the temporary identity files killed `rta keys new`/`import`s left beside `identity`; returns their paths. Refuses nothing. */
export function removeIdentityLeftovers(identity: string): string[] {
  return removeLeftovers(dirname(identity), IDENTITY_TEMP, "file");
}

function removeLeftovers(dir: string, pattern: RegExp, kind: "dir" | "file"): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || running(pid)) continue;
    const path = join(dir, name);
    try {
      // a symlink or another user's entry is never followed or removed
      const s = lstatSync(path);
      if ((kind === "dir" ? !s.isDirectory() : !s.isFile()) || (uid !== undefined && s.uid !== uid)) continue;
      rmSync(path, { recursive: kind === "dir", force: true });
      removed.push(path);
    } catch {}
  }
  return removed;
}

/** Whether a process runs with this pid: one another user runs counts (EPERM), so its file is kept. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
