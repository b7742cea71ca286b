/**
 * Who holds the grant store's write lock, so that a store locked past every
 * wait is said with the process to resume or end. Any process that opens
 * gate.db can hold the lock for good by stopping inside a transaction: a
 * stdio server is its client's child, and a client can SIGSTOP it as it
 * writes a record line. The store cannot prevent that; it can name it, and
 * stop waiting the whole timeout for it on every write (StoreWriteLock).
 */
import type { Database } from "bun:sqlite";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { RtaError } from "../core/errors.ts";
import { type ShmFile, WAL_WRITE_LOCK_BYTE } from "./store/shm.ts";

/** How long a writer waits for another process's transaction before giving up. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * How long a write waits for the lock (a record line, a grant's use) once one
 * has waited the store's BUSY_TIMEOUT_MS for it in vain, until one goes
 * through. Another server holds the lock a few microseconds a line, so a lock
 * held that long is stuck: a process stopped while holding it (a stdio server
 * is its client's child, and a client can SIGSTOP it mid-line) or a person's
 * sqlite3 in a transaction. The wait blocks the whole server (bun:sqlite waits
 * synchronously), and a call writes two lines and may spend a use, so each
 * call froze every other caller for 10 to 15 s.
 */
const STUCK_LOCK_RETRY_MS = 50;

/** SQLite's busy handler's pauses between tries for a lock, in ms (sqliteDefaultBusyCallback); 100 after. */
const BUSY_PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50];

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
  let ofd = false;
  for (const row of locks.split("\n")) {
    // 1: POSIX  ADVISORY  WRITE 4242 fe:00:2147371 120 120
    // An rta server's record line holds it as an OFD lock, which the kernel shows with no pid (-1).
    const f = writeLockRow(row, inode);
    if (!f) continue;
    if (f.kind === "OFDLCK") ofd = true;
    else addHolder(holders, f.pid);
  }
  if (ofd) for (const pid of ofdHolders(inode)) addHolder(holders, pid);
  return holders;
}

/** A row of /proc/locks (or of a descriptor's fdinfo) that write-locks the store's lock byte in `inode`. */
function writeLockRow(row: string, inode: number): { kind: string; pid: number } | undefined {
  const f = row.trim().split(/\s+/);
  const kind = f[1] ?? "";
  if ((kind !== "POSIX" && kind !== "OFDLCK") || f[3] !== "WRITE") return undefined;
  const at = Number(f[6]);
  if (Number(f[5]?.split(":")[2]) !== inode || at > WAL_WRITE_LOCK_BYTE) return undefined;
  if (Number(f[7]) < WAL_WRITE_LOCK_BYTE && f[7] !== "EOF") return undefined;
  return { kind, pid: Number(f[4]) };
}

function addHolder(holders: LockHolder[], pid: number): void {
  if (pid === process.pid || holders.some((h) => h.pid === pid)) return;
  holders.push({ pid, stopped: processStopped(pid) });
}

/**
 * The processes whose open descriptors hold an OFD lock on the store's lock
 * byte: each descriptor's fdinfo lists the locks on it. Asked only once a
 * write has waited in vain, so the walk over /proc costs nothing a call.
 */
function ofdHolders(inode: number): number[] {
  const pids: number[] = [];
  let procs: string[];
  try {
    procs = readdirSync("/proc").filter((p) => /^[0-9]+$/.test(p));
  } catch {
    return pids;
  }
  for (const pid of procs) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fdinfo`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let info: string;
      try {
        info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8");
      } catch {
        continue;
      }
      // lock:	1: OFDLCK ADVISORY  WRITE -1 fe:00:2147371 120 120
      const locked = info.split("\n").some((l) => l.startsWith("lock:") && writeLockRow(l.slice(5), inode));
      if (locked && !pids.includes(Number(pid))) pids.push(Number(pid));
    }
  }
  return pids;
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
function storeBusyError(file: string, err: unknown): unknown {
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

/** SQLite's codes for a write the store's disk or file would not take (its code names more after an underscore). */
const UNWRITABLE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)/;

/**
 * What a write on a full disk or a store made read-only becomes: core.store.unavailable saying so, not a bare
 * internal failure. A lock not had is said as storeBusyError says it; anything else is returned as it was.
 */
function storeWriteError(file: string, err: unknown): unknown {
  if (!UNWRITABLE.test(String((err as { code?: string }).code))) return storeBusyError(file, err);
  return new RtaError(
    "core.store.unavailable",
    "the grant store cannot be written",
    "a person must make it writable again (room on its disk, its file writable); the call can then be sent again",
  );
}

/** How the grant store's writes wait for its write lock, and what they say when it is not had. */
export class StoreWriteLock {
  /** the last write that waited for the write lock waited in vain */
  private stuck = false;

  constructor(
    private readonly db: Database,
    private readonly file: string,
  ) {}

  /**
   * Runs `write`, which starts by taking the write lock: while the lock is
   * known to be stuck it is waited for STUCK_LOCK_RETRY_MS, not the store's
   * 5 s; a lock not had is said as core.store.unavailable, naming its holder.
   */
  taking<T>(write: () => T): T {
    const stuck = this.stuck;
    if (stuck) this.busyTimeout(STUCK_LOCK_RETRY_MS);
    try {
      const done = write();
      this.stuck = false;
      return done;
    } catch (err) {
      if ((err as { code?: string }).code === "SQLITE_BUSY") this.stuck = true;
      throw storeWriteError(this.file, err);
    } finally {
      if (stuck) this.busyTimeout(BUSY_TIMEOUT_MS);
    }
  }

  /**
   * Takes the write lock as `shm`'s OFD lock on SQLite's lock byte (see
   * store/shm.ts), waiting as `taking` waits: the store's 5 s, or 50 ms while
   * the lock is known to be stuck, with SQLite's own pauses between tries; a
   * lock not had is said as core.store.unavailable, naming its holder.
   */
  takingByte(shm: ShmFile): void {
    const limit = this.stuck ? STUCK_LOCK_RETRY_MS : BUSY_TIMEOUT_MS;
    let waited = 0;
    for (let i = 0; ; i++) {
      if (shm.tryLock()) {
        this.stuck = false;
        return;
      }
      if (waited >= limit) break;
      // The pauses SQLite's busy handler makes: a writer of an earlier rta, or a grant's use, waits on them too,
      // and would be starved by a writer that tried more often.
      const pause = Math.min(BUSY_PAUSES_MS[i] ?? 100, limit - waited);
      Bun.sleepSync(pause);
      waited += pause;
    }
    this.stuck = true;
    throw storeBusyError(this.file, { code: "SQLITE_BUSY" });
  }

  /** Runs an operator's write; a store another process holds past the wait is said with who holds it. */
  operator<T>(write: () => T): T {
    try {
      return write();
    } catch (err) {
      throw storeBusyError(this.file, err);
    }
  }

  /** Sets how long the next statement waits for another process's lock. */
  private busyTimeout(ms: number): void {
    // Run afresh each time: SQLite carries out this pragma when it is prepared, so a prepared one does nothing.
    this.db.exec(`PRAGMA busy_timeout = ${ms}`);
  }
}
