/**
 * The leases of resource subscriptions' watchers in the shared store, for a
 * server's replicas (seed 002's model). A watcher is one per agent and URI,
 * however many sessions subscribe to it; it is leased to one replica at a time
 * (owner, until expires_at, 15 s), renewed every second, and carries a fencing
 * token: a number drawn from one sequence each time the lease changes hands.
 * Every write a worker makes (a renewal, the digest of the answer it told, its
 * release) names its token and is refused once the token is no longer current
 * (another claimed the lease) or the lease ran out, so a superseded worker
 * stops. A lease not renewed for 15 s is claimed by any replica's sweep, one
 * winner per lease. Telling a change is `pg_notify` in the fenced statement:
 * every replica LISTENing hears it once the write commits, and only then.
 * A subscription row is held by the replica holding the client's stream and
 * renewed by it; one no longer held is dropped, and with the last one the
 * watcher. A 2025-11-25 session's row is `<session> <watcher>`: the replica
 * its stream moves to takes it back, and it ends with the session. Asynchronous, on a connection of its own (Bun.SQL): no call waits
 * on it. Times are the replicas' clocks, in ms.
 */
import { createHash } from "node:crypto";
import type { SQL } from "bun";

/** How long a lease, or a subscription's hold, lasts without renewal. */
export const LEASE_MS = 15_000;
/** How often leases and holds are renewed, and expired ones swept. */
export const RENEW_MS = 1_000;
/** The channel a told change is NOTIFYed on; its payload is the watcher's id. */
export const CHANNEL = "rta_watch";

/** A lease as its holder knows it: the watcher and the fencing token it was claimed with. */
export interface Lease {
  id: string;
  fence: number;
}

/** A watcher's row, as a claim returns it. */
export interface WatcherRow extends Lease {
  agent: string;
  uri: string;
  /** the client's reported name and version, read again as */
  client: string;
  /** the digest of the answer last told; null before any */
  digest: string | null;
}

/** What a subscription asks to be watched. */
export interface Wanted {
  agent: string;
  uri: string;
  client: string;
  digest: string;
}

/** The watcher id of `agent`'s subscriptions to `uri`: one for every session of that agent. */
export function watcherId(agent: string, uri: string): string {
  return createHash("sha256").update(`${agent}\n${uri}`).digest("base64url");
}

const CLAIMED = "id, agent, uri, client, fence::text AS fence, digest";

function rowOf(r: Record<string, unknown>): WatcherRow {
  return {
    id: String(r.id),
    agent: String(r.agent),
    uri: String(r.uri),
    client: String(r.client),
    fence: Number(r.fence),
    digest: r.digest === null || r.digest === undefined ? null : String(r.digest),
  };
}

export class PgLeases {
  /**
   * `sql` is a connection pool of this replica's own; `owner` names the replica in the rows (its leases and the
   * subscriptions it holds).
   */
  constructor(
    private readonly sql: SQL,
    readonly owner: string,
  ) {}

  /**
   * Records subscription `sub`, held by this replica, to the watcher of `w`, making the watcher when none is (a
   * subscription recorded already, by a session's id, is held here from now on). A
   * watcher made here is claimed by this replica when `claim` (its row is returned, lease and all); else it is left
   * for a sweep. Undefined when the watcher was there already, or not claimed.
   */
  async subscribe(sub: string, w: Wanted, now: number, claim: boolean): Promise<WatcherRow | undefined> {
    const id = watcherId(w.agent, w.uri);
    return await this.sql.begin(async (tx) => {
      // the no-op update locks a watcher that is there, so an unsubscribe or a sweep cannot drop it under this one
      const [row] = await tx.unsafe(
        `INSERT INTO watchers (id, agent, uri, client, owner, fence, expires_at, digest)
         VALUES ($1, $2, $3, $4, $5, nextval('watch_fences'), $6::bigint, $7)
         ON CONFLICT (id) DO UPDATE SET id = watchers.id
         RETURNING ${CLAIMED}, (xmax = 0) AS fresh`,
        [id, w.agent, w.uri, w.client, claim ? this.owner : null, claim ? now + LEASE_MS : 0, w.digest],
      );
      await tx.unsafe(
        `INSERT INTO watch_subscriptions (id, watcher, holder, held_until) VALUES ($1, $2, $3, $4::bigint)
         ON CONFLICT (id) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until`,
        [sub, id, this.owner, now + LEASE_MS],
      );
      return claim && row?.fresh === true ? rowOf(row) : undefined;
    });
  }

  /** Drops subscription `sub`, and its watcher when no other subscription is left to it (its worker is refused next). */
  async unsubscribe(sub: string): Promise<void> {
    await this.sql.begin(async (tx) => {
      const [held] = await tx.unsafe(
        "SELECT w.id FROM watchers w JOIN watch_subscriptions s ON s.watcher = w.id WHERE s.id = $1 FOR UPDATE OF w",
        [sub],
      );
      if (held === undefined) return;
      await tx.unsafe("DELETE FROM watch_subscriptions WHERE id = $1", [sub]);
      await tx.unsafe(
        "DELETE FROM watchers w WHERE w.id = $1 AND NOT EXISTS (SELECT 1 FROM watch_subscriptions s WHERE s.watcher = w.id)",
        [held.id],
      );
    });
  }

  /**
   * Claims, for this replica, up to `room` watchers whose lease ran out (or was never taken), each with a new
   * fencing token, and no more of one agent's than make `perAgent` held here: the agents' watchers are taken in
   * turn, so one agent's thousands never take every worker while another's wait. Two replicas claiming at once
   * never both win one: the row is re-read under its lock.
   */
  async claimExpired(now: number, room: number, perAgent = Number.MAX_SAFE_INTEGER): Promise<WatcherRow[]> {
    if (room <= 0) return [];
    const rows = await this.sql.unsafe(
      `UPDATE watchers SET owner = $1, fence = nextval('watch_fences'), expires_at = $2::bigint + ${LEASE_MS}
       WHERE id IN (
         SELECT id FROM watchers WHERE id IN (
           SELECT c.id FROM (
             SELECT id, agent, expires_at, row_number() OVER (PARTITION BY agent ORDER BY expires_at, id) AS turn
             FROM watchers WHERE expires_at <= $2::bigint) c
           LEFT JOIN (SELECT agent, count(*) AS n FROM watchers WHERE owner = $1 AND expires_at > $2::bigint
                      GROUP BY agent) held ON held.agent = c.agent
           WHERE c.turn + coalesce(held.n, 0) <= $4::bigint
           ORDER BY c.turn, c.expires_at, c.id LIMIT $3)
         AND expires_at <= $2::bigint FOR UPDATE SKIP LOCKED)
         AND expires_at <= $2::bigint
       RETURNING ${CLAIMED}`,
      [this.owner, now, room, perAgent],
    );
    return [...rows].map(rowOf);
  }

  /** Renews `leases` still current (token unchanged, not run out); returns the ids renewed: the others are lost. */
  async renew(leases: readonly Lease[], now: number): Promise<Set<string>> {
    if (leases.length === 0) return new Set();
    const rows = await this.sql.unsafe(
      `UPDATE watchers w SET expires_at = $2::bigint + ${LEASE_MS}
       FROM jsonb_to_recordset($3::text::jsonb) AS m(id text, fence bigint)
       WHERE w.id = m.id AND w.fence = m.fence AND w.owner = $1 AND w.expires_at > $2::bigint
       RETURNING w.id`,
      [this.owner, now, JSON.stringify(leases.map((l) => ({ id: l.id, fence: l.fence })))],
    );
    return new Set([...rows].map((r: { id: string }) => r.id));
  }

  /**
   * Tells a change of the watcher's answer: writes its digest and NOTIFYs every replica, both only while `lease`
   * is current. False: refused (superseded, run out or dropped), and the worker must stop.
   */
  async tell(lease: Lease, digest: string, now: number): Promise<boolean> {
    const rows = await this.sql.unsafe(
      `UPDATE watchers SET digest = $3 WHERE id = $1 AND fence = $2::bigint AND expires_at > $4::bigint
       RETURNING pg_notify('${CHANNEL}', id) IS NULL AS told`,
      [lease.id, lease.fence, digest, now],
    );
    return rows.length === 1;
  }

  /** Gives up `leases` still current at once (a replica stopping), so another replica claims them at its next sweep. */
  async release(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.sql.unsafe(
      `UPDATE watchers w SET expires_at = 0, owner = NULL FROM jsonb_to_recordset($2::text::jsonb) AS m(id text, fence bigint)
       WHERE w.id = m.id AND w.fence = m.fence AND w.owner = $1`,
      [this.owner, JSON.stringify(leases.map((l) => ({ id: l.id, fence: l.fence })))],
    );
  }

  /** Renews the hold of every subscription this replica holds (the client's stream is here). */
  async hold(now: number): Promise<void> {
    await this.sql.unsafe("UPDATE watch_subscriptions SET held_until = $2::bigint WHERE holder = $1", [
      this.owner,
      now + LEASE_MS,
    ]);
  }

  /**
   * Drops the subscriptions no replica has held for 15 s (their stream's replica is gone), and those of sessions
   * whose row is gone (a subscribe that passed its session's check as a DELETE elsewhere removed the row: held by
   * the replica it was made on, it would be renewed for as long as that one ran), and each watcher left with none;
   * returns how many subscriptions it dropped.
   */
  async sweep(now: number): Promise<number> {
    return await this.drop(
      `held_until <= $1::bigint OR (position(' ' in watch_subscriptions.id) > 0 AND NOT EXISTS (
         SELECT 1 FROM mcp_sessions m WHERE m.id = split_part(watch_subscriptions.id, ' ', 1)))`,
      [now],
    );
  }

  /**
   * Holds from now on the subscriptions of session `session` (ids `<session> <watcher>`): its stream is here now.
   * Returns each one's URI.
   */
  async takeBack(session: string, now: number): Promise<{ sub: string; uri: string }[]> {
    const rows = await this.sql.unsafe(
      `UPDATE watch_subscriptions s SET holder = $1, held_until = $2::bigint FROM watchers w
       WHERE w.id = s.watcher AND starts_with(s.id, $3) RETURNING s.id, w.uri`,
      [this.owner, now + LEASE_MS, `${session} `],
    );
    return [...rows].map((r: { id: string; uri: string }) => ({ sub: String(r.id), uri: String(r.uri) }));
  }

  /** Holds the subscriptions of `sessions` (each one's stream is here), renewed like this replica's own. */
  async holdSessions(sessions: readonly string[], now: number): Promise<void> {
    if (sessions.length === 0) return;
    await this.sql.unsafe(
      `UPDATE watch_subscriptions SET holder = $1, held_until = $2::bigint
       WHERE position(' ' in id) > 0 AND split_part(id, ' ', 1) IN (SELECT jsonb_array_elements_text($3::text::jsonb))`,
      [this.owner, now + LEASE_MS, JSON.stringify(sessions)],
    );
  }

  /** Which of `sessions` (each one's stream is here) no longer have a row: they ended on another replica. */
  async ended(sessions: readonly string[]): Promise<string[]> {
    if (sessions.length === 0) return [];
    const rows = await this.sql.unsafe(
      `SELECT value AS id FROM jsonb_array_elements_text($1::text::jsonb)
       WHERE NOT EXISTS (SELECT 1 FROM mcp_sessions m WHERE m.id = value)`,
      [JSON.stringify(sessions)],
    );
    return [...rows].map((r: { id: string }) => String(r.id));
  }

  /**
   * Stops holding the subscriptions of `session` (of every session, when undefined): they are kept for the replica
   * its client's stream moves to, and dropped by a sweep when none takes them back within 15 s.
   */
  async letGo(session?: string): Promise<void> {
    await this.sql.unsafe(
      `UPDATE watch_subscriptions SET holder = '' WHERE holder = $1 AND position(' ' in id) > 0
         AND ($2::text IS NULL OR starts_with(id, $2))`,
      [this.owner, session === undefined ? null : `${session} `],
    );
  }

  /** Drops every subscription of `session` (it ended, on every replica), and each watcher left with none. */
  async endSession(session: string): Promise<number> {
    return await this.drop("starts_with(id, $1)", [`${session} `]);
  }

  /**
   * Which of `sessions` (those whose stream the asking replica holds) are subscribed to watcher `id` (to any, when
   * null), each with the URI it subscribed to.
   */
  async subscribers(id: string | null, sessions: readonly string[]): Promise<{ session: string; uri: string }[]> {
    const rows = await this.sql.unsafe(
      `SELECT split_part(s.id, ' ', 1) AS session, w.uri FROM watch_subscriptions s JOIN watchers w ON w.id = s.watcher
       WHERE position(' ' in s.id) > 0 AND ($1::text IS NULL OR s.watcher = $1)
         AND split_part(s.id, ' ', 1) IN (SELECT jsonb_array_elements_text($2::text::jsonb))`,
      [id, JSON.stringify(sessions)],
    );
    return [...rows].map((r: { session: string; uri: string }) => ({ session: String(r.session), uri: String(r.uri) }));
  }

  /** Drops every subscription this replica holds (it is stopping: their streams end), and each watcher left with none. */
  async leave(): Promise<number> {
    return await this.drop("holder = $1", [this.owner]);
  }

  /** Drops the subscriptions `where` selects, their watchers locked first (in one order), and the watchers left bare. */
  private async drop(where: string, params: unknown[]): Promise<number> {
    return await this.sql.begin(async (tx) => {
      const touched = await tx.unsafe(
        `SELECT id FROM watchers WHERE id IN (SELECT watcher FROM watch_subscriptions WHERE ${where})
         ORDER BY id FOR UPDATE`,
        params,
      );
      if (touched.length === 0) return 0;
      const gone = await tx.unsafe(`DELETE FROM watch_subscriptions WHERE ${where} RETURNING id`, params);
      await tx.unsafe(
        `DELETE FROM watchers w WHERE w.id IN (SELECT value FROM jsonb_array_elements_text($1::text::jsonb))
           AND NOT EXISTS (SELECT 1 FROM watch_subscriptions s WHERE s.watcher = w.id)`,
        [JSON.stringify([...touched].map((r: { id: string }) => r.id))],
      );
      return gone.length;
    });
  }
}
