/**
 * Who holds the grant store's write lock, so that a store locked past every
 * wait is said with the process to resume or end. Any process that opens
 * gate.db can hold the lock for good by stopping inside a transaction: a
 * stdio server is its client's child, and a client can SIGSTOP it as it
 * writes a record line. The store cannot prevent that; it can name it.
 */
import { readFileSync, statSync } from "node:fs";
import { RtaError } from "../core/errors.ts";

/** In WAL mode SQLite's writer lock is a POSIX lock on this byte of the `-shm` file (WAL_WRITE_LOCK). */
const WAL_WRITE_LOCK_BYTE = 120;

export interface LockHolder {
  pid: number;
  /** stopped by a signal (state T) */
  stopped: boolean;
}

/** The other processes holding `file`'s write lock, read from /proc/locks; empty where that cannot be read. */
export function storeLockHolders(file: string): LockHolder[] {
  let inode: number;
  let locks: string;
  try {
    inode = statSync(`${file}-shm`).ino;
    locks = readFileSync("/proc/locks", "utf8");
  } catch {
    return [];
  }
  const holders: LockHolder[] = [];
  for (const row of locks.split("\n")) {
    // 1: POSIX  ADVISORY  WRITE 4242 fe:00:2147371 120 120
    const f = row.trim().split(/\s+/);
    if (f[1] !== "POSIX" || f[3] !== "WRITE") continue;
    const pid = Number(f[4]);
    const at = Number(f[6]);
    if (Number(f[5]?.split(":")[2]) !== inode || at > WAL_WRITE_LOCK_BYTE) continue;
    if (Number(f[7]) < WAL_WRITE_LOCK_BYTE && f[7] !== "EOF") continue;
    if (pid === process.pid || holders.some((h) => h.pid === pid)) continue;
    holders.push({ pid, stopped: processStopped(pid) });
  }
  return holders;
}

function processStopped(pid: number): boolean {
  try {
    // /proc/PID/stat: "PID (comm) STATE ...": the comm can hold spaces and parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^\s*[Tt]/.test(stat.slice(stat.lastIndexOf(")") + 1));
  } catch {
    return false;
  }
}

/**
 * What SQLite's "database is locked" becomes once the wait for the store is
 * over: core.store.unavailable naming the process that holds it and what to
 * do. Anything else is returned as it was.
 */
export function storeBusyError(file: string, err: unknown): unknown {
  if ((err as { code?: string }).code !== "SQLITE_BUSY") return err;
  const holders = storeLockHolders(file);
  const first = holders[0];
  const who = holders.map((h) => `${h.pid}${h.stopped ? " (stopped)" : ""}`).join(", ");
  return new RtaError(
    "core.store.unavailable",
    first ? `the grant store is held locked by process ${who}` : "the grant store is held locked by another process",
    first
      ? `that process must let it go: resume it (kill -CONT ${first.pid}) or end it (kill ${first.pid})`
      : "end the process holding gate.db in a transaction (a stopped server, or sqlite3 left open)",
  );
}
