/**
 * The gate's store in PostgreSQL, for a team's server on several replicas: the
 * grants, locks, tokens and rate buckets gate.db holds, shared by every replica
 * of one `postgres://` URL, through Bun's built-in client (Bun.SQL) answered
 * synchronously (pgBridge.ts), so it has GateStore's methods and the stages
 * need no change. Opening runs the schema's migrations (pgSchema.ts). A lock or
 * a revoke bumps the change counter in its statement, and each call reads that
 * one row, so a lock set through any replica stops the next call on all of
 * them. A server's record goes to the store too (pgRecord.ts, its own
 * connection, awaited); the checkpoint methods below are for a file record
 * kept beside this store (a test's, a bench's), by the data dir's gate.db.
 * Every failure is core.store.unavailable naming the store without its
 * password.
 */
import type { RecordCheckpoint } from "../../record/append.ts";
import type { Chosen } from "./db.ts";
import { newRowId } from "./db.ts";
import type { Grant, GrantQuery, NewGrant } from "./grants.ts";
import type { Lock, NewLock } from "./locks.ts";
import { SyncPg } from "./pgBridge.ts";
import { endSelectedPg, PgGrants, rowOf } from "./pgGrants.ts";
import { migrate, refuseUnencoded, safeUrl, storeFailure } from "./pgSchema.ts";
import { PgSessionRows, type SessionRows } from "./pgSessions.ts";
import { CALL_UNITS, type Taken } from "./rates.ts";
import type { Token } from "./tokens.ts";

export { isPostgresUrl } from "../../core/storeUrl.ts";

/** What keeps the record's checkpoint: the data dir's gate.db (GateStore's two methods). */
export interface LocalCheckpoints {
  recordCheckpoint(): RecordCheckpoint;
  appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void;
  close(): void;
}

/** The refill, as store/rates.ts computes it, with $3 now, $4 calls a minute and $5 the bucket's cap. */
const REFILLED = "LEAST($5::bigint, rate_buckets.level + GREATEST(0, $3::bigint - rate_buckets.at) * $4::bigint)";
const TAKE = `
INSERT INTO rate_buckets (agent, capability, level, at, spent)
VALUES (lower($1), $2, $5::bigint - ${CALL_UNITS}, $3::bigint, true)
ON CONFLICT (agent, capability) DO UPDATE SET
  level = CASE WHEN ${REFILLED} >= ${CALL_UNITS} THEN ${REFILLED} - ${CALL_UNITS} ELSE ${REFILLED} END,
  spent = ${REFILLED} >= ${CALL_UNITS},
  at = GREATEST(rate_buckets.at, $3::bigint)
RETURNING level::text AS level, spent`;

export class PgGateStore {
  private readonly pg: SyncPg;
  private readonly grants: PgGrants;
  /** the locks not lifted, oldest first, as they were at change `version` */
  private held: Lock[] = [];
  private version: string | undefined;
  private localStore: LocalCheckpoints | undefined;
  /** how many migrations opening this store ran: 0 when the schema was current */
  readonly migrated: number;

  /**
   * Connects to the store at `url` and brings its schema up to date; refuses (core.store.unavailable) a server
   * it cannot reach or use, or a schema newer than this rta's. `local` opens the data dir's gate.db, for the
   * record's checkpoint, at the first line.
   */
  constructor(
    /** the store's URL, password included: never said (see label) */
    private readonly url: string,
    private readonly local: () => LocalCheckpoints = () => {
      throw new Error("this store keeps no record");
    },
  ) {
    refuseUnencoded(url);
    this.pg = new SyncPg(url);
    this.grants = new PgGrants(this.pg);
    try {
      this.migrated = migrate(this.pg, url);
    } catch (err) {
      this.pg.close();
      throw storeFailure(url, err);
    }
  }
  /**
   * No wal-index header to look at: undefined, so a watcher of the grants (an rta://grants subscription) reads them
   * again at each look instead, and tells only a change of what it read.
   */
  commitHeader(): Buffer | undefined {
    return undefined;
  }

  /**
   * The store's URL, password included, for a connection of this process's own beside the gate's (a replica's
   * watcher leases and LISTEN: mcp/leases.ts). Never to be said: label is what may be shown.
   */
  connectionUrl(): string {
    return this.url;
  }

  /** The store as it may be shown: its URL without the password. */
  get label(): string {
    return safeUrl(this.url);
  }

  close(): void {
    this.pg.close();
    this.localStore?.close();
  }

  private run<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      throw storeFailure(this.url, err);
    }
  }

  /** The 2025-11-25 clients' HTTP sessions (pgSessions.ts); each failure said as core.store.unavailable. */
  sessionRows(): SessionRows {
    const rows = new PgSessionRows(this.pg);
    const run = this.run.bind(this);
    return {
      put: (row) => run(() => rows.put(row)),
      touch: (id, agent, now) => run(() => rows.touch(id, agent, now)),
      remove: (id) => run(() => rows.remove(id)),
      removeAgent: (agent) => run(() => rows.removeAgent(agent)),
      removeIdle: (before) => run(() => rows.removeIdle(before)),
      count: (agent) => run(() => rows.count(agent)),
      leastUsed: (agent, except) => run(() => rows.leastUsed(agent, except)),
      trim: (agent, keep, except) => run(() => rows.trim(agent, keep, except)),
    };
  }

  // Grants (pgGrants.ts).

  issue(grant: NewGrant, args?: string): Grant {
    return this.run(() => this.grants.issue(grant, args));
  }
  /** Spends one use of a live grant that matches, in one statement across every replica; undefined when none is. */
  spend(q: GrantQuery): Grant | undefined {
    return this.run(() => this.grants.spend(q));
  }
  giveBack(id: string): void {
    this.run(() => this.grants.giveBack(id));
  }
  lastMatching(q: GrantQuery): Grant | undefined {
    return this.run(() => this.grants.lastMatching(q));
  }
  staleMatching(q: GrantQuery): Grant | undefined {
    return this.run(() => this.grants.staleMatching(q));
  }
  list(): Grant[] {
    return this.run(() => this.grants.list());
  }
  grantArgs(): Map<string, string> {
    return this.run(() => this.grants.argsTexts());
  }
  get(id: string): Grant | undefined {
    return this.run(() => this.grants.get(id));
  }
  revoke(by: Chosen, now: number): number {
    return this.run(() => this.grants.revoke(by, now));
  }
  liveGrants(agent: string, now: number): Grant[] {
    return this.run(() => this.grants.live(agent, now));
  }

  // Tokens.

  /** Stores a token's hash, never the token; returns the row. */
  addToken(agent: string, hash: string, now: number, expiresAt: number | null, issuedBy: string): Token {
    const id = newRowId("t");
    this.run(() =>
      this.pg.query(
        "INSERT INTO tokens (id, agent, hash, issued_at, expires_at, issued_by) VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6)",
        [id, agent, hash, now, expiresAt, issuedBy],
      ),
    );
    return { id, agent, hash, issued_at: now, expires_at: expiresAt, issued_by: issuedBy, revoked_at: null };
  }
  tokenByHash(hash: string, now: number): Token | undefined {
    const rows = this.run(() =>
      this.pg.query(
        "SELECT * FROM tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2::bigint)",
        [hash, now],
      ),
    );
    return rows[0] ? rowOf<Token>(rows[0]) : undefined;
  }
  tokens(): Token[] {
    return this.run(() => this.pg.query("SELECT * FROM tokens ORDER BY issued_at ASC, seq ASC")).map((r) =>
      rowOf<Token>(r),
    );
  }
  revokeTokens(by: Chosen, now: number): number {
    const row = { table: "tokens", endColumn: "revoked_at", live: "revoked_at IS NULL" };
    return this.run(() => endSelectedPg(this.pg, row, by, now));
  }

  // Locks: the change counter says when the cached ones are stale.

  /** Stores a new lock and bumps the change counter in one statement: every replica's next call sees it. */
  lock(lock: NewLock): Lock {
    const id = newRowId("l");
    this.run(() =>
      this.pg.query(
        `WITH added AS (INSERT INTO locks (id, agent, target, issued_at, expires_at, issued_by)
           VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6) RETURNING id)
         UPDATE changes SET n = n + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM added)`,
        [id, lock.agent, lock.target, lock.issued_at, lock.expires_at, lock.issued_by],
      ),
    );
    return { ...lock, id, lifted_at: null };
  }

  /**
   * The oldest active lock that stops this agent's call to one of `targets`, if any. One read a call: the change
   * counter; the locks are read again only when it moved.
   */
  lockFor(agent: string, targets: string[], now: number): Lock | undefined {
    const [row] = this.run(() => this.pg.query<{ n: string }>("SELECT n::text AS n FROM changes WHERE id = 1"));
    if (this.version === undefined || row?.n !== this.version) {
      const rows = this.run(() => this.pg.query("SELECT * FROM locks WHERE lifted_at IS NULL ORDER BY issued_at, seq"));
      this.held = rows.map((r) => rowOf<Lock>(r));
      this.version = row?.n;
    }
    const folded = agent.toLowerCase();
    return this.held.find(
      (l) =>
        (l.expires_at === null || l.expires_at > now) &&
        (l.agent === null || l.agent.toLowerCase() === folded) &&
        (l.target === null || targets.includes(l.target)),
    );
  }
  locks(): Lock[] {
    return this.run(() => this.pg.query("SELECT * FROM locks ORDER BY issued_at ASC, seq ASC")).map((r) =>
      rowOf<Lock>(r),
    );
  }
  lift(by: Chosen, now: number): number {
    const live = "lifted_at IS NULL AND (expires_at IS NULL OR expires_at > $1::bigint)";
    return this.run(() => endSelectedPg(this.pg, { table: "locks", endColumn: "lifted_at", live }, by, now));
  }

  // Rate limits: one statement refills and spends, as store/rates.ts does.

  takeToken(agent: string, capability: string, perMinute: number, now: number): Taken {
    const params = [agent, capability, now, perMinute, perMinute * CALL_UNITS];
    const [row] = this.run(() => this.pg.query<{ level: string; spent: boolean }>(TAKE, params));
    if (!row || row.spent) return { taken: true };
    return { taken: false, waitMs: Math.ceil((CALL_UNITS - Number(row.level)) / perMinute) };
  }

  // The record's checkpoint: the replica's own data dir, this phase.

  recordCheckpoint(): RecordCheckpoint {
    this.localStore ??= this.local();
    return this.localStore.recordCheckpoint();
  }
  appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void {
    this.localStore ??= this.local();
    this.localStore.appendRecordLine(append, undo);
  }
}
