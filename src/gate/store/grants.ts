/**
 * The grants table: a person's consent, issued, matched, spent and revoked.
 * Spending a use is one BEGIN IMMEDIATE transaction: the write lock is taken
 * before the grant is read, so two servers never spend one use twice. It
 * refuses nothing a person typed: gate/operator checks that before a grant
 * reaches here.
 */
import type { Database, Statement } from "bun:sqlite";
import type { StoreWriteLock } from "../storeLock.ts";
import { type Chosen, endSelected, newRowId, targetParams } from "./db.ts";

export interface Grant {
  id: string;
  /** a capability's dotted name, an area, or a plugin name */
  target: string;
  /** one record the grant is narrowed to (a note id, a kv key), or null for any */
  record: string | null;
  agent: string;
  connection: string | null;
  profile: string | null;
  host: string | null;
  /** the digest of the one exact call the grant covers, or null for any */
  args_digest: string | null;
  /** null: any number of uses until it expires */
  max_uses: number | null;
  uses: number;
  issued_at: number;
  expires_at: number;
  issued_by: string;
  /** the build the grant is bound to: `rta <version>` for a built-in */
  build: string;
  /** the digest of the plugin artifact it was issued against; null for a built-in */
  digest: string | null;
  revoked_at: number | null;
}

export type NewGrant = Omit<Grant, "id" | "uses" | "revoked_at">;

/** What a call is matched against. */
export interface GrantQuery {
  /** the capability's name, its area, and its plugin when it has one */
  targets: string[];
  agent: string;
  record: string | null;
  connection: string | null;
  profile: string | null;
  host: string | null;
  /** true when only a grant naming the host can allow the call (an address no hostless grant may reach) */
  hostRequired: boolean;
  args_digest: string;
  /** the sha256 of the plugin binary the call would run, as it hashes now; null (or left out) for a built-in */
  digest?: string | null;
  now: number;
}

/** The narrowing columns: a grant that sets one matches only a call with that value (the artifact aside). */
const MATCH_ANY_ARTIFACT = `
  agent = $agent AND target IN ($t1, $t2, $t3)
  AND (record IS NULL OR record = $record)
  AND (connection IS NULL OR connection = $connection)
  AND profile IS $profile
  AND (host IS NULL OR host = $host) AND (host IS NOT NULL OR NOT $host_required)
  AND (args_digest IS NULL OR args_digest = $args_digest)`;

/**
 * And the artifact: a grant covers only the binary it was issued against, the
 * plugin's sha256 then (null for a built-in, which is rta's own build). A
 * plugin replaced since leaves every grant on it covering nothing.
 */
const MATCH = `${MATCH_ANY_ARTIFACT} AND digest IS $digest`;

/**
 * Which matching grant a call spends: the narrowest first, the broadest last.
 * A grant naming the host comes first, since only it can let a call reach an
 * address that a hostless grant may not (loopback, private, metadata); then
 * one bound to the exact arguments, to the record, to the connection, to the
 * capability rather than its area or plugin. A use spent on a broader grant
 * while a narrower one was there would be one the operator meant for another
 * call. Among equals, the one that ends soonest.
 */
const NARROWEST_FIRST = `ORDER BY host IS NULL, args_digest IS NULL, record IS NULL, connection IS NULL,
  target IS NOT $t1, expires_at ASC, rowid ASC`;

export type GrantState = "live" | "spent" | "expired" | "revoked";

/** What became of a grant by `now`: revoked first, then expired, then spent (as LIVE says in SQL); refuses nothing. */
export function grantState(g: Grant, now: number): GrantState {
  if (g.revoked_at !== null) return "revoked";
  if (g.expires_at <= now) return "expired";
  if (g.max_uses !== null && g.uses >= g.max_uses) return "spent";
  return "live";
}

/** A grant not revoked, not expired and not spent. */
const LIVE = "revoked_at IS NULL AND expires_at > $now AND (max_uses IS NULL OR uses < max_uses)";

export class GrantStore {
  private readonly findLive: Statement<Grant>;
  private readonly findAny: Statement<Grant>;
  private readonly spendOne: Statement;
  private readonly findStale: Statement<Grant>;

  constructor(
    private readonly db: Database,
    private readonly writeLock: StoreWriteLock,
  ) {
    this.findLive = db.query(`SELECT * FROM grants WHERE ${MATCH} AND ${LIVE} ${NARROWEST_FIRST} LIMIT 1`);
    this.findAny = db.query(`SELECT * FROM grants WHERE ${MATCH} ORDER BY issued_at DESC, rowid DESC LIMIT 1`);
    this.findStale = db.query(
      `SELECT * FROM grants WHERE ${MATCH_ANY_ARTIFACT} AND digest IS NOT $digest AND ${LIVE}
       ORDER BY issued_at DESC, rowid DESC LIMIT 1`,
    );
    this.spendOne = db.query(
      "UPDATE grants SET uses = uses + 1 WHERE id = $id AND (max_uses IS NULL OR uses < max_uses)",
    );
  }

  /**
   * Stores a new grant under a fresh id and returns it, unspent; `args` is the
   * call an --args grant covers as the person wrote it (its digest is what
   * matches), kept beside it in grant_args so a listing can show it.
   */
  issue(grant: NewGrant, args?: string): Grant {
    for (;;) {
      const id = newRowId("g");
      try {
        this.db.transaction(() => {
          this.db
            .query(
              `INSERT INTO grants (id, target, record, agent, connection, profile, host, args_digest, max_uses, issued_at,
             expires_at, issued_by, build, digest)
             VALUES ($id, $target, $record, $agent, $connection, $profile, $host, $args_digest, $max_uses, $issued_at,
             $expires_at, $issued_by, $build, $digest)`,
            )
            .run({ id, ...grant });
          if (args !== undefined)
            this.db.query("INSERT INTO grant_args (id, args) VALUES ($id, $args)").run({ id, args });
        })();
        return { ...grant, id, uses: 0, revoked_at: null };
      } catch (err) {
        if (!String((err as Error).message).includes("UNIQUE")) throw err;
      }
    }
  }

  /**
   * Spends one use of a live grant that matches, atomically across processes.
   * Returns the grant spent, or undefined when none is live for this call.
   */
  spend(q: GrantQuery): Grant | undefined {
    const params = queryParams(q);
    return this.writeLock.taking(() =>
      this.db
        .transaction(() => {
          const grant = this.findLive.get(params);
          if (!grant) return undefined;
          const changed = this.spendOne.run({ id: grant.id }).changes;
          return changed === 1 ? { ...grant, uses: grant.uses + 1 } : undefined;
        })
        .immediate(),
    );
  }

  /** Gives back a use spent by a call that was then refused before it ran. */
  giveBack(id: string): void {
    this.db.query("UPDATE grants SET uses = uses - 1 WHERE id = $id AND uses > 0").run({ id });
  }

  /** The most recent grant that would match but for time or uses: to say whether it expired or was spent. */
  lastMatching(q: GrantQuery): Grant | undefined {
    return this.findAny.get(queryParams(q)) ?? undefined;
  }

  /** The newest live grant that would match but was issued against another artifact (a plugin replaced since). */
  staleMatching(q: GrantQuery): Grant | undefined {
    return this.findStale.get(queryParams(q)) ?? undefined;
  }

  /** Every grant ever issued, oldest first. */
  list(): Grant[] {
    return this.db.query<Grant, []>("SELECT * FROM grants ORDER BY issued_at ASC, rowid ASC").all();
  }

  /** The arguments each --args grant was issued with, as the person wrote them, by grant id; older grants have none. */
  argsTexts(): Map<string, string> {
    const rows = this.db.query<{ id: string; args: string }, []>("SELECT id, args FROM grant_args").all();
    return new Map(rows.map((r) => [r.id, r.args]));
  }

  /** The grant with this id, whatever its state. */
  get(id: string): Grant | undefined {
    return this.db.query<Grant, { id: string }>("SELECT * FROM grants WHERE id = $id").get({ id }) ?? undefined;
  }

  /** Revokes the selected grants not revoked yet; returns how many. */
  revoke(by: Chosen, now: number): number {
    return this.writeLock.operator(() =>
      endSelected(this.db, { table: "grants", endColumn: "revoked_at", live: "revoked_at IS NULL" }, by, now),
    );
  }

  /** An agent's own live grants, for its `rta://grants` resource. */
  live(agent: string, now: number): Grant[] {
    return this.db
      .query<Grant, { agent: string; now: number }>(
        `SELECT * FROM grants WHERE agent = $agent AND ${LIVE} ORDER BY expires_at ASC, rowid ASC`,
      )
      .all({ agent, now });
  }
}

function queryParams(q: GrantQuery): Record<string, string | number | null> {
  return {
    agent: q.agent,
    ...targetParams(q.targets),
    record: q.record,
    connection: q.connection,
    profile: q.profile,
    host: q.host,
    host_required: q.hostRequired ? 1 : 0,
    args_digest: q.args_digest,
    digest: q.digest ?? null,
    now: q.now,
  };
}
