/**
 * The locks table: the instant no a person sets, found by stage 4 on every
 * agent call and lifted by a person. It refuses nothing a person typed:
 * gate/operator checks that before a lock reaches here.
 */
import type { Database, Statement } from "bun:sqlite";
import type { StoreWriteLock } from "../storeLock.ts";
import { type Chosen, endSelected, newRowId } from "./db.ts";
import { CommitMark, type ShmFile } from "./shm.ts";

export interface Lock {
  id: string;
  /** null: every agent */
  agent: string | null;
  /** a capability or area; null: everything */
  target: string | null;
  issued_at: number;
  /** null: until lifted */
  expires_at: number | null;
  issued_by: string;
  lifted_at: number | null;
}

export type NewLock = Omit<Lock, "id" | "lifted_at">;

/** A lock not lifted and not expired. */
const ACTIVE = "lifted_at IS NULL AND (expires_at IS NULL OR expires_at > $now)";

/**
 * A name as SQLite's NOCASE compares it: ASCII letters folded, nothing else,
 * so a lock matches in memory exactly the agents the SQL matched.
 */
function nocase(name: string): string {
  return /[A-Z]/.test(name) ? name.replace(/[A-Z]+/g, (s) => s.toLowerCase()) : name;
}

/** A lock not lifted, with its agent folded as NOCASE folds it. */
interface HeldLock {
  lock: Lock;
  agent: string | null;
}

export class LockStore {
  private readonly unlifted: Statement<Lock>;
  private readonly dataVersion: Statement<{ data_version: number }>;
  /** the locks not lifted, oldest first, as the database held them at `version` */
  private held: HeldLock[] = [];
  /** this connection's data_version when `held` was read; undefined: read them again */
  private version: number | undefined;
  /** gate.db as it was when `held` was read, by its wal-index header (see shm.ts) */
  private readonly readAt = new CommitMark();

  constructor(
    private readonly db: Database,
    private readonly writeLock: StoreWriteLock,
    /** gate.db's -shm file, when it can be read (else data_version is asked) */
    private readonly shm: () => ShmFile | undefined,
  ) {
    // A lock's agent is matched whatever its case (names are ASCII, which NOCASE folds): a lock typed
    // `claude-desktop` for the agent the record shows as Claude-Desktop must stop it, not stop nothing.
    // A grant's name stays exact: a slip there refuses, which is the safe way to be wrong.
    // Every lock not lifted is held in memory and read again only when another connection has committed since
    // (PRAGMA data_version changes then, whoever wrote, and whatever they wrote: a lock, a lift, a record line).
    // This connection's own writes do not change it, so lock() and lift() drop what is held themselves.
    // Where gate.db's -shm file can be read, its wal-index header is asked in place of data_version: it changes
    // at every commit of any connection, this one's included, and one pread reads it (shm.ts).
    this.unlifted = db.query("SELECT * FROM locks WHERE lifted_at IS NULL ORDER BY issued_at ASC, rowid ASC");
    this.dataVersion = db.query("PRAGMA data_version");
  }

  /** Stores a new lock; refuses with core.store.unavailable, naming the holder, when another process holds the store past the wait. */
  lock(lock: NewLock): Lock {
    const id = newRowId("l");
    this.version = undefined;
    this.readAt.mark(undefined);
    this.writeLock.operator(() =>
      this.db
        .query(
          `INSERT INTO locks (id, agent, target, issued_at, expires_at, issued_by)
         VALUES ($id, $agent, $target, $issued_at, $expires_at, $issued_by)`,
        )
        .run({ id, ...lock }),
    );
    return { ...lock, id, lifted_at: null };
  }

  /**
   * The lock that stops this agent's call to one of `targets`, if any: the
   * oldest active one. Asks the database only whether anything changed since
   * the locks were last read.
   */
  lockFor(agent: string, targets: string[], now: number): Lock | undefined {
    if (targets.length > 3) throw new Error("a call has at most three gate targets");
    const shm = this.shm();
    if (shm) {
      // The header read before the locks: what they are read as is at least as new as it.
      const header = shm.readHeader();
      if (!this.readAt.same(header)) {
        this.readHeld();
        this.readAt.mark(header);
      }
    } else {
      const version = this.dataVersion.get()?.data_version;
      if (version === undefined || version !== this.version) {
        this.readHeld();
        this.version = version;
      }
    }
    if (this.held.length === 0) return undefined;
    const folded = nocase(agent);
    for (const { lock, agent: locked } of this.held) {
      if (lock.expires_at !== null && lock.expires_at <= now) continue;
      if (locked !== null && locked !== folded) continue;
      if (lock.target !== null && !targets.includes(lock.target)) continue;
      return lock;
    }
    return undefined;
  }

  private readHeld(): void {
    this.held = this.unlifted.all().map((lock) => ({ lock, agent: lock.agent === null ? null : nocase(lock.agent) }));
  }

  /** Every lock ever set, oldest first. */
  list(): Lock[] {
    return this.db.query<Lock, []>("SELECT * FROM locks ORDER BY issued_at ASC, rowid ASC").all();
  }

  /**
   * Lifts the selected locks still active (by agent: its own locks, whatever the case they were set in, not the
   * ones on everyone); returns how many. Refuses as lock() does.
   */
  lift(by: Chosen, now: number): number {
    this.version = undefined;
    this.readAt.mark(undefined);
    return this.writeLock.operator(() =>
      endSelected(this.db, { table: "locks", endColumn: "lifted_at", live: ACTIVE }, by, now),
    );
  }
}
