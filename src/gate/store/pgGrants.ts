/**
 * The grants table in PostgreSQL: the same matching as store/grants.ts says for
 * gate.db, in PostgreSQL's words. Spending a use is one statement: the UPDATE
 * picks the narrowest live grant with its row locked and adds the use only
 * while uses < max_uses, so two replicas never spend the last use twice.
 */
import { type Chosen, newRowId, targetParams } from "./db.ts";
import type { Grant, GrantQuery, NewGrant } from "./grants.ts";
import type { SyncPg } from "./pgBridge.ts";

/** The narrowing columns, with $1 the agent, $2..$4 the targets, $5.. the rest (see params()). */
const MATCH_ANY_ARTIFACT = `
  agent = $1 AND target IN ($2, $3, $4)
  AND (record IS NULL OR record = $5)
  AND (connection IS NULL OR connection = $6)
  AND profile IS NOT DISTINCT FROM $7
  AND (host IS NULL OR host = $8) AND (host IS NOT NULL OR NOT $9::boolean)
  AND (args_digest IS NULL OR args_digest = $10)`;
const MATCH = `${MATCH_ANY_ARTIFACT} AND digest IS NOT DISTINCT FROM $11`;
const LIVE = "revoked_at IS NULL AND expires_at > $12::bigint AND (max_uses IS NULL OR uses < max_uses)";
const NARROWEST_FIRST = `ORDER BY host IS NULL, args_digest IS NULL, record IS NULL, connection IS NULL,
  target IS DISTINCT FROM $2, expires_at ASC, seq ASC`;

/** A grant's columns as a Grant has them: not the arguments an --args grant keeps, which a spend has no use for. */
const GRANT_COLUMNS = `id, target, record, agent, connection, profile, host, args_digest, max_uses, uses, issued_at,
  expires_at, issued_by, build, digest, revoked_at`;

/** One statement: the narrowest live grant, locked, gets one more use, unless it has none left by then. */
const SPEND = `UPDATE grants SET uses = uses + 1
  WHERE id = (SELECT id FROM grants WHERE ${MATCH} AND ${LIVE} ${NARROWEST_FIRST} LIMIT 1 FOR UPDATE)
  AND (max_uses IS NULL OR uses < max_uses) RETURNING ${GRANT_COLUMNS}`;
const FIND_ANY = `SELECT * FROM grants WHERE ${MATCH} ORDER BY issued_at DESC, seq DESC LIMIT 1`;
const FIND_STALE = `SELECT * FROM grants WHERE ${MATCH_ANY_ARTIFACT} AND digest IS DISTINCT FROM $11 AND ${LIVE}
  ORDER BY issued_at DESC, seq DESC LIMIT 1`;

const NUMBERS = ["max_uses", "uses", "issued_at", "expires_at", "revoked_at", "lifted_at"] as const;

/** A row as PostgreSQL returns it (bigints as strings), as the SQLite store's rows are: numbers, and no seq. */
export function rowOf<T>(raw: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...raw };
  delete out.seq;
  delete out.args;
  for (const k of NUMBERS) if (typeof out[k] === "string" || typeof out[k] === "bigint") out[k] = Number(out[k]);
  return out as T;
}

function params(q: GrantQuery): (string | number | boolean | null)[] {
  const t = targetParams(q.targets);
  const args = [q.agent, t.t1, t.t2, t.t3, q.record, q.connection, q.profile, q.host, q.hostRequired];
  return [...args, q.args_digest, q.digest ?? null, q.now];
}

/**
 * Ends the selected rows of `table` still live (a revoke or a lift) and bumps the change counter, in one statement;
 * returns how many were ended. By id first, then by agent whatever its case, then all; a selection naming none ends
 * nothing.
 */
export function endSelectedPg(
  pg: SyncPg,
  row: { table: string; endColumn: string; live: string },
  by: Chosen,
  now: number,
): number {
  const set = `UPDATE ${row.table} SET ${row.endColumn} = $1::bigint WHERE ${row.live}`;
  let stmt: string;
  let args: (string | number)[];
  if (by.id) [stmt, args] = [`${set} AND id = $2`, [now, by.id]];
  else if (by.agent) [stmt, args] = [`${set} AND lower(agent) = lower($2)`, [now, by.agent]];
  else if (by.all) [stmt, args] = [set, [now]];
  else return 0;
  const [counted] = pg.query<{ n: number }>(
    `WITH ended AS (${stmt} RETURNING id),
     bumped AS (UPDATE changes SET n = n + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM ended))
     SELECT count(*)::int AS n FROM ended`,
    args,
  );
  return Number(counted?.n ?? 0);
}

export class PgGrants {
  constructor(private readonly pg: SyncPg) {}

  /** Stores a new grant under a fresh id, with the arguments an --args grant was issued with; returns it unspent. */
  issue(grant: NewGrant, args?: string): Grant {
    for (;;) {
      const id = newRowId("g");
      const g = grant;
      const rows = this.pg.query(
        `INSERT INTO grants (id, target, record, agent, connection, profile, host, args_digest, max_uses, issued_at,
         expires_at, issued_by, build, digest, args)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::bigint, $10::bigint, $11::bigint, $12, $13, $14, $15)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          id,
          g.target,
          g.record,
          g.agent,
          g.connection,
          g.profile,
          g.host,
          g.args_digest,
          g.max_uses,
          g.issued_at,
        ].concat([g.expires_at, g.issued_by, g.build, g.digest, args ?? null]),
      );
      if (rows.length === 1) return { ...grant, id, uses: 0, revoked_at: null };
    }
  }

  /**
   * Spends one use of the narrowest live grant that matches, in one statement; undefined when none is live. A
   * grant spent out by another replica while this one waited on its row leaves nothing returned, so it asks once
   * more for the next narrowest.
   */
  spend(q: GrantQuery): Grant | undefined {
    const p = params(q);
    for (let tries = 0; tries < 2; tries++) {
      const rows = this.pg.query(SPEND, p);
      if (rows[0]) return rowOf<Grant>(rows[0]);
    }
    return undefined;
  }

  giveBack(id: string): void {
    this.pg.query("UPDATE grants SET uses = uses - 1 WHERE id = $1 AND uses > 0", [id]);
  }

  lastMatching(q: GrantQuery): Grant | undefined {
    const rows = this.pg.query(FIND_ANY, params(q).slice(0, 11));
    return rows[0] ? rowOf<Grant>(rows[0]) : undefined;
  }

  staleMatching(q: GrantQuery): Grant | undefined {
    const rows = this.pg.query(FIND_STALE, params(q));
    return rows[0] ? rowOf<Grant>(rows[0]) : undefined;
  }

  list(): Grant[] {
    const rows = this.pg.query("SELECT * FROM grants ORDER BY issued_at ASC, seq ASC");
    return rows.map((r: Record<string, unknown>) => rowOf<Grant>(r));
  }

  argsTexts(): Map<string, string> {
    const rows = this.pg.query<{ id: string; args: string }>("SELECT id, args FROM grants WHERE args IS NOT NULL");
    return new Map(rows.map((r) => [r.id, r.args]));
  }

  get(id: string): Grant | undefined {
    const rows = this.pg.query("SELECT * FROM grants WHERE id = $1", [id]);
    return rows[0] ? rowOf<Grant>(rows[0]) : undefined;
  }

  revoke(by: Chosen, now: number): number {
    return endSelectedPg(this.pg, { table: "grants", endColumn: "revoked_at", live: "revoked_at IS NULL" }, by, now);
  }

  live(agent: string, now: number): Grant[] {
    const rows = this.pg.query(
      `SELECT * FROM grants WHERE agent = $1 AND revoked_at IS NULL AND expires_at > $2::bigint
       AND (max_uses IS NULL OR uses < max_uses) ORDER BY expires_at ASC, seq ASC`,
      [agent, now],
    );
    return rows.map((r: Record<string, unknown>) => rowOf<Grant>(r));
  }
}
