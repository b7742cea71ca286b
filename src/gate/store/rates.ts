/**
 * The rate_buckets table: one token bucket per (agent, capability), kept in
 * gate.db so that every server sharing a data dir spends from the same one.
 * A call takes a token with one statement that refills the bucket for the
 * time since it was last asked and spends from it; SQLite's write lock makes
 * that atomic across processes, so two servers never spend one token twice.
 *
 * Counted in whole units so the sums are exact: one call costs a minute's
 * worth of milliseconds (60 000 units), a bucket refills by its calls a
 * minute in units each millisecond, and holds at most a minute of calls (the
 * burst). A bucket nobody has asked yet starts full, and so one not asked
 * for a minute, full again whatever its limit, is deleted (at most once a
 * minute, with a take): a client naming itself anew each call would
 * otherwise leave a row per name for good. An agent's name is
 * matched whatever its ASCII case, as a lock matches it, so a client cannot
 * get a fresh bucket by writing its name in capitals.
 */
import type { Database, Statement } from "bun:sqlite";
import type { StoreWriteLock } from "../storeLock.ts";

/** What one call costs, in units: the bucket refills by its calls a minute in units per ms. */
export const CALL_UNITS = 60_000;

/** What taking a token said: taken, or refused with the milliseconds until one will be there. */
export type Taken = { taken: true } | { taken: false; waitMs: number };

interface BucketRow {
  level: number;
  spent: number;
}

/**
 * Refill for the time since `at` (never backwards: another server's clock may
 * be behind), capped at a minute of calls; then spend one call when it is there.
 */
const REFILLED = "min($cap, level + max(0, $now - at) * $per_minute)";
const TAKE = `
INSERT INTO rate_buckets (agent, capability, level, at, spent) VALUES ($agent, $capability, $cap - ${CALL_UNITS}, $now, 1)
ON CONFLICT (agent, capability) DO UPDATE SET
  level = CASE WHEN ${REFILLED} >= ${CALL_UNITS} THEN ${REFILLED} - ${CALL_UNITS} ELSE ${REFILLED} END,
  spent = ${REFILLED} >= ${CALL_UNITS},
  at = max(at, $now)
RETURNING level, spent`;

/** Since its last call, how long until any bucket is full again (a minute of calls): then it is the same as no row. */
export const FULL_AFTER_MS = 60_000;

const PRUNE = "DELETE FROM rate_buckets WHERE at < $before";

export class RateStore {
  private readonly take: Statement<BucketRow>;
  private readonly prune: Statement;
  /** when this store last deleted the buckets full again */
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    db: Database,
    private readonly writeLock: StoreWriteLock,
  ) {
    this.take = db.query(TAKE);
    this.prune = db.query(PRUNE);
  }

  /**
   * Takes one call from the bucket of `agent` and `capability`, which allows
   * `perMinute` calls a minute; refuses (core.store.unavailable) a store
   * another process holds past the wait.
   */
  takeToken(agent: string, capability: string, perMinute: number, now: number): Taken {
    const params = { agent, capability, now, per_minute: perMinute, cap: perMinute * CALL_UNITS };
    const row = this.writeLock.taking(() => {
      // a row whose time is ahead of this clock (another server's) is kept: it is not known to be full yet
      if (now - this.prunedAt >= FULL_AFTER_MS) {
        this.prune.run({ before: now - FULL_AFTER_MS });
        this.prunedAt = now;
      }
      return this.take.get(params);
    });
    if (!row || row.spent === 1) return { taken: true };
    return { taken: false, waitMs: Math.ceil((CALL_UNITS - row.level) / perMinute) };
  }
}
