/**
 * The locks table: the instant no a person sets, found by stage 4 on every
 * agent call and lifted by a person. It refuses nothing a person typed:
 * gate/operator checks that before a lock reaches here.
 */
import type { Database, Statement } from "bun:sqlite";
import type { StoreWriteLock } from "../storeLock.ts";
import { type Chosen, endSelected, NAMES_AGENT, newRowId, targetParams } from "./db.ts";

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

export class LockStore {
  private readonly activeLock: Statement<Lock>;

  constructor(
    private readonly db: Database,
    private readonly writeLock: StoreWriteLock,
  ) {
    // A lock's agent is matched whatever its case (names are ASCII, which NOCASE folds): a lock typed
    // `claude-desktop` for the agent the record shows as Claude-Desktop must stop it, not stop nothing.
    // A grant's name stays exact: a slip there refuses, which is the safe way to be wrong.
    this.activeLock = db.query(
      `SELECT * FROM locks WHERE ${ACTIVE}
       AND (agent IS NULL OR ${NAMES_AGENT})
       AND (target IS NULL OR target IN ($t1, $t2, $t3))
       ORDER BY issued_at ASC LIMIT 1`,
    );
  }

  /** Stores a new lock; refuses with core.store.unavailable, naming the holder, when another process holds the store past the wait. */
  lock(lock: NewLock): Lock {
    const id = newRowId("l");
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

  /** The lock that stops this agent's call to one of `targets`, if any. */
  lockFor(agent: string, targets: string[], now: number): Lock | undefined {
    return this.activeLock.get({ agent, ...targetParams(targets), now }) ?? undefined;
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
    return this.writeLock.operator(() =>
      endSelected(this.db, { table: "locks", endColumn: "lifted_at", live: ACTIVE }, by, now),
    );
  }
}
