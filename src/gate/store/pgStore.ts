/**
 * The gate's store in PostgreSQL, for a team's server on several replicas: the
 * grants, locks, tokens and rate buckets gate.db holds, shared by every replica
 * of one `postgres://` URL, through Bun's built-in client (Bun.SQL). Its methods
 * are GateStore's (the StoreTables interface), answered in promises. Opening runs
 * the schema's migrations (pgSchema.ts); a lock or a revoke bumps the change
 * counter in its transaction, and each call reads that one row, so a lock set
 * through any replica stops the next call on all of them. Every failure is
 * core.store.unavailable naming the store without its password.
 */
import { SQL } from "bun";
import type { Chosen } from "./db.ts";
import { newRowId } from "./db.ts";
import type { Grant, GrantQuery, NewGrant } from "./grants.ts";
import type { Lock, NewLock } from "./locks.ts";
import { endSelectedPg, PgGrants, rowOf } from "./pgGrants.ts";
import { migrate, safeUrl, storeFailure } from "./pgSchema.ts";
import type { Taken } from "./rates.ts";
import { CALL_UNITS } from "./rates.ts";
import type { Token } from "./tokens.ts";

/** Whether a store named on the command line, in RTA_STORE or config, is a PostgreSQL one. */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store);
}

/** The refill, as store/rates.ts computes it, with $3 now, $4 calls a minute and $5 the bucket's cap. */
const REFILLED = "LEAST($5::bigint, rate_buckets.level + GREATEST(0, $3::bigint - rate_buckets.at) * $4::bigint)";
const TAKE = `
INSERT INTO rate_buckets (agent, capability, level, at, spent) VALUES (lower($1), $2, $5::bigint - ${CALL_UNITS}, $3::bigint, true)
ON CONFLICT (agent, capability) DO UPDATE SET
  level = CASE WHEN ${REFILLED} >= ${CALL_UNITS} THEN ${REFILLED} - ${CALL_UNITS} ELSE ${REFILLED} END,
  spent = ${REFILLED} >= ${CALL_UNITS},
  at = GREATEST(rate_buckets.at, $3::bigint)
RETURNING level, spent`;

export class PgGateStore {
  private readonly sql: SQL;
  private readonly grants: PgGrants;
  /** the locks not lifted, oldest first, as they were at change `version` */
  private held: Lock[] = [];
  private version: string | undefined;

  private constructor(
    /** the store's URL, password included: never said (see label) */
    private readonly url: string,
    max: number,
  ) {
    this.sql = new SQL(url, { max, idleTimeout: 30, connectionTimeout: 10 });
    this.grants = new PgGrants(this.sql);
  }

  /**
   * Connects to the store at `url` and brings its schema up to date; refuses (core.store.unavailable) a server
   * it cannot reach or use, or a schema newer than this rta's.
   */
  static async open(url: string, options: { max?: number } = {}): Promise<PgGateStore> {
    const store = new PgGateStore(url, options.max ?? 10);
    try {
      await migrate(store.sql, url);
    } catch (err) {
      await store.sql.close().catch(() => {});
      throw storeFailure(url, err);
    }
    return store;
  }

  /** The store as it may be shown: its URL without the password. */
  get label(): string {
    return safeUrl(this.url);
  }

  async close(): Promise<void> {
    await this.sql.close();
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw storeFailure(this.url, err);
    }
  }

  // Grants (pgGrants.ts).

  issue(grant: NewGrant, args?: string): Promise<Grant> {
    return this.run(() => this.grants.issue(grant, args));
  }
  /** Spends one use of a live grant that matches, in one statement across every replica; undefined when none is. */
  spend(q: GrantQuery): Promise<Grant | undefined> {
    return this.run(() => this.grants.spend(q));
  }
  giveBack(id: string): Promise<void> {
    return this.run(() => this.grants.giveBack(id));
  }
  lastMatching(q: GrantQuery): Promise<Grant | undefined> {
    return this.run(() => this.grants.lastMatching(q));
  }
  staleMatching(q: GrantQuery): Promise<Grant | undefined> {
    return this.run(() => this.grants.staleMatching(q));
  }
  list(): Promise<Grant[]> {
    return this.run(() => this.grants.list());
  }
  grantArgs(): Promise<Map<string, string>> {
    return this.run(() => this.grants.argsTexts());
  }
  get(id: string): Promise<Grant | undefined> {
    return this.run(() => this.grants.get(id));
  }
  revoke(by: Chosen, now: number): Promise<number> {
    return this.run(() => this.grants.revoke(by, now));
  }
  liveGrants(agent: string, now: number): Promise<Grant[]> {
    return this.run(() => this.grants.live(agent, now));
  }

  // Tokens.

  /** Stores a token's hash, never the token; returns the row. */
  addToken(agent: string, hash: string, now: number, expiresAt: number | null, issuedBy: string): Promise<Token> {
    const id = newRowId("t");
    return this.run(async () => {
      await this.sql.unsafe(
        "INSERT INTO tokens (id, agent, hash, issued_at, expires_at, issued_by) VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6)",
        [id, agent, hash, now, expiresAt, issuedBy],
      );
      return { id, agent, hash, issued_at: now, expires_at: expiresAt, issued_by: issuedBy, revoked_at: null };
    });
  }
  tokenByHash(hash: string, now: number): Promise<Token | undefined> {
    return this.run(async () => {
      const rows = await this.sql.unsafe(
        "SELECT * FROM tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2::bigint)",
        [hash, now],
      );
      return rows[0] ? rowOf<Token>(rows[0]) : undefined;
    });
  }
  tokens(): Promise<Token[]> {
    return this.run(async () =>
      (await this.sql.unsafe("SELECT * FROM tokens ORDER BY issued_at ASC, seq ASC")).map(
        (r: Record<string, unknown>) => rowOf<Token>(r),
      ),
    );
  }
  revokeTokens(by: Chosen, now: number): Promise<number> {
    const row = { table: "tokens", endColumn: "revoked_at", live: "revoked_at IS NULL" };
    return this.run(() => endSelectedPg(this.sql, row, by, now));
  }

  // Locks: the change counter says when the cached ones are stale.

  /** Stores a new lock and bumps the change counter in one transaction: every replica's next call sees it. */
  lock(lock: NewLock): Promise<Lock> {
    const id = newRowId("l");
    return this.run(async () => {
      await this.sql.begin(async (tx) => {
        await tx.unsafe(
          `INSERT INTO locks (id, agent, target, issued_at, expires_at, issued_by)
           VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6)`,
          [id, lock.agent, lock.target, lock.issued_at, lock.expires_at, lock.issued_by],
        );
        await tx.unsafe("UPDATE changes SET n = n + 1 WHERE id = 1");
      });
      return { ...lock, id, lifted_at: null };
    });
  }

  /**
   * The oldest active lock that stops this agent's call to one of `targets`, if any. One read a call: the change
   * counter; the locks are read again only when it moved.
   */
  lockFor(agent: string, targets: string[], now: number): Promise<Lock | undefined> {
    return this.run(async () => {
      const [row] = (await this.sql.unsafe("SELECT n::text AS n FROM changes WHERE id = 1")) as { n: string }[];
      if (row?.n !== this.version || this.version === undefined) {
        const rows = await this.sql.unsafe("SELECT * FROM locks WHERE lifted_at IS NULL ORDER BY issued_at, seq");
        this.held = rows.map((r: Record<string, unknown>) => rowOf<Lock>(r));
        this.version = row?.n;
      }
      const folded = agent.toLowerCase();
      return this.held.find(
        (l) =>
          (l.expires_at === null || l.expires_at > now) &&
          (l.agent === null || l.agent.toLowerCase() === folded) &&
          (l.target === null || targets.includes(l.target)),
      );
    });
  }
  locks(): Promise<Lock[]> {
    return this.run(async () =>
      (await this.sql.unsafe("SELECT * FROM locks ORDER BY issued_at ASC, seq ASC")).map((r: Record<string, unknown>) =>
        rowOf<Lock>(r),
      ),
    );
  }
  lift(by: Chosen, now: number): Promise<number> {
    const live = "lifted_at IS NULL AND (expires_at IS NULL OR expires_at > $1::bigint)";
    return this.run(() => endSelectedPg(this.sql, { table: "locks", endColumn: "lifted_at", live }, by, now));
  }

  // Rate limits: one statement refills and spends, as store/rates.ts does.

  takeToken(agent: string, capability: string, perMinute: number, now: number): Promise<Taken> {
    return this.run(async () => {
      const rows = (await this.sql.unsafe(TAKE, [agent, capability, now, perMinute, perMinute * CALL_UNITS])) as {
        level: string;
        spent: boolean;
      }[];
      const row = rows[0];
      if (!row || row.spent) return { taken: true } as Taken;
      return { taken: false, waitMs: Math.ceil((CALL_UNITS - Number(row.level)) / perMinute) };
    });
  }
}
