/**
 * A lock across processes: a file made exclusively, naming the process that
 * holds it. A lock whose process is gone (killed mid-change) is taken over,
 * and only that one: two rtas that find the same dead lock at once would
 * each remove it by its name, the second removing the lock the first had
 * just made, and both would hold it.
 * The plugin index and the kv store take one each; each waits its own way
 * (the index synchronously, the store without blocking a server).
 */
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Takes the lock at `file` if it is free or its holder is gone: true when
 * this process now holds it, false when another live process does. Once
 * held, what a killed taker left aside beside it is removed. Throws what
 * the system says of the directory (it must exist).
 */
export function tryFileLock(file: string): boolean {
  for (;;) {
    try {
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      removeDeadAsides(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const seen = lockHolder(file);
      if (seen.alive) return false;
      removeDeadLock(file, seen.id);
    }
  }
}

let asides = 0;

/**
 * Removes the lock at `file` if it is still the one found dead (`id`: its
 * device, inode, modification time and text), else leaves it: moved aside under a
 * name of this process's own, the moved file is compared, and a lock another
 * rta made since is put back. Only a third rta making a lock in the instant it
 * stands aside could then hold it beside that one's maker.
 */
export function removeDeadLock(file: string, id: string | undefined): void {
  const aside = `${file}.${process.pid}.${++asides}.dead`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  // another rta's lock, made since this one was found dead: put back
  if (id !== undefined && lockId(aside) !== id) {
    try {
      linkSync(aside, file);
    } catch {
      // another lock stands there already: its maker holds it
    }
  }
  releaseFileLock(aside);
}

/** A lock file as found at its name, not followed: its device, inode and modification time, and a file's text. */
function lockId(file: string): string | undefined {
  try {
    const s = lstatSync(file, { bigint: true });
    return idOf(s, s.isFile() ? readFileSync(file, "utf8") : "");
  } catch {
    return undefined;
  }
}

function idOf(s: BigIntStats, text: string): string {
  // not its change time: moving it aside changes that
  return `${s.dev}:${s.ino}:${s.mtimeNs}:${text}`;
}

/** Lets go of a lock this process took with tryFileLock; one already gone is no error. */
export function releaseFileLock(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** How long a lock may stand empty (made, its pid not yet written) before its maker is taken for dead. */
const EMPTY_GRACE_MS = 2000;

function emptySince(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}

/** Whether a live process holds the lock at `lock`, and, when none does, the lock as found (lockId). */
export function lockHolder(lock: string): { alive: boolean; id?: string } {
  let text: string;
  let id: string;
  try {
    // without waiting: a FIFO at the name would stop the process (a server's every call) in a read
    const fd = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      // a FIFO or a device, which no rta makes, is held by no process; a directory cannot be taken over
      const st = fstatSync(fd, { bigint: true });
      if (!st.isFile()) return st.isDirectory() ? { alive: true } : { alive: false, id: idOf(st, "") };
      text = readFileSync(fd, "utf8");
      id = idOf(st, text);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    // a link at the name, which no rta makes, holds no lock either
    if ((err as NodeJS.ErrnoException).code === "ELOOP") return { alive: false, id: lockId(lock) };
    return { alive: true }; // just removed: look again
  }
  const dead = { alive: false, id };
  // made but not yet written: its maker is between two calls, unless it died there long ago
  if (text === "") return emptySince(lock) < EMPTY_GRACE_MS ? { alive: true } : dead;
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) return dead;
  return isAlive(pid) ? { alive: true } : dead;
}

/** Whether process `pid` is running (one another user runs counts). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what removeDeadLock left beside the lock at `file` when it was killed between moving a dead lock aside and
 * removing it: `<lock>.<pid>.<n>.dead` whose process is gone. One a live process made is its own, between its two
 * steps, and is left. Refuses nothing.
 */
export function removeDeadAsides(file: string): void {
  const dir = dirname(file);
  const base = basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`) || !name.endsWith(".dead")) continue;
    const [pid, n, ...rest] = name.slice(base.length + 1, -".dead".length).split(".");
    if (rest.length > 0 || !/^\d+$/.test(pid ?? "") || !/^\d+$/.test(n ?? "") || isAlive(Number(pid))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // gone already, or not ours to remove: left
    }
  }
}
