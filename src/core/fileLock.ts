/**
 * A lock across processes: a file made exclusively, naming the process that
 * holds it. A lock whose process is gone (killed mid-change) is taken over.
 * The plugin index and the kv store take one each; each waits its own way
 * (the index synchronously, the store without blocking a server).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

/**
 * Takes the lock at `file` if it is free or its holder is gone: true when
 * this process now holds it, false when another live process does. Throws
 * what the system says of the directory (it must exist).
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
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (holderAlive(file)) return false;
      try {
        unlinkSync(file);
      } catch (gone) {
        if ((gone as NodeJS.ErrnoException).code !== "ENOENT") throw gone;
      }
    }
  }
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

function holderAlive(lock: string): boolean {
  let text: string;
  try {
    // without waiting: a FIFO at the name would stop the process (a server's every call) in a read
    const fd = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      // a FIFO or a device, which no rta makes, is held by no process; a directory cannot be taken over
      const st = fstatSync(fd);
      if (!st.isFile()) return st.isDirectory();
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    // a link at the name, which no rta makes, holds no lock either
    if ((err as NodeJS.ErrnoException).code === "ELOOP") return false;
    return true; // just removed: look again
  }
  // made but not yet written: its maker is between two calls, unless it died there long ago
  if (text === "") return emptySince(lock) < EMPTY_GRACE_MS;
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
