/**
 * The 2025-11-25 clients' HTTP sessions in the shared store, so a session
 * opened on one replica is continued on any other: one row a session, written
 * once its initialize is answered and removed when it ends (its client's
 * DELETE, a person at `rta operator`, its agent locked, idle expiry or
 * eviction). A row holds what a replica needs to build the session again: its
 * id, the agent whose token opened it, the protocol revision negotiated, and
 * the client's info and the capabilities the server asks of it (roots,
 * sampling, elicitation), each held to a size. Never a token, never a
 * password. The rows are what the per-agent share and the server's cap count.
 */
import type { SyncPg } from "./pgBridge.ts";

/** A session as the store keeps it. */
export interface SessionRow {
  id: string;
  /** the agent whose token opened it: no other token may use it */
  agent: string;
  /** the protocol revision its initialize negotiated */
  protocol: string;
  /** the client's clientInfo, as initialize said it (name, version, title) */
  client: Record<string, string>;
  /** the capabilities the server asks of the client, as initialize declared them */
  capabilities: Record<string, unknown>;
  createdAt: number;
  lastUsed: number;
}

/** The capabilities a server of rta's asks of a client; the rest are not kept. */
const KEPT_CAPABILITIES = ["roots", "sampling", "elicitation"] as const;
/** The longest clientInfo field kept, in characters. */
const CLIENT_FIELD_CHARS = 256;
/** The most JSON one kept capability may take; a larger one is kept as declared, with no detail (`{}`). */
const CAPABILITY_CHARS = 2048;

/** What an initialize request's params say of its client, cut to what a row keeps. Refuses nothing. */
export function keptClient(params: unknown): Pick<SessionRow, "client" | "capabilities"> {
  const p = (isObject(params) ? params : {}) as { clientInfo?: unknown; capabilities?: unknown };
  const client: Record<string, string> = {};
  if (isObject(p.clientInfo))
    for (const key of ["name", "version", "title"]) {
      const v = p.clientInfo[key];
      if (typeof v === "string") client[key] = v.slice(0, CLIENT_FIELD_CHARS);
    }
  const capabilities: Record<string, unknown> = {};
  if (isObject(p.capabilities))
    for (const key of KEPT_CAPABILITIES) {
      const v = p.capabilities[key];
      if (!isObject(v)) continue;
      capabilities[key] = JSON.stringify(v).length <= CAPABILITY_CHARS ? v : {};
    }
  return { client, capabilities };
}

/** A row's columns in the order of INSERT_SESSION. Refuses nothing. */
export function sessionColumns(s: SessionRow): unknown[] {
  return [s.id, s.agent, s.protocol, JSON.stringify(s.client), JSON.stringify(s.capabilities), s.createdAt, s.lastUsed];
}

/** A row as the store gave it back; undefined for one that does not hold a session (a missing or unreadable column). */
export function sessionOfRow(row: Record<string, unknown>): SessionRow | undefined {
  const { id, agent, protocol, client, capabilities, created_at, last_used } = row;
  if (typeof id !== "string" || typeof agent !== "string" || typeof protocol !== "string") return undefined;
  const parsedClient = parseObject(client);
  const parsedCaps = parseObject(capabilities);
  if (!parsedClient || !parsedCaps) return undefined;
  if (!Object.values(parsedClient).every((v) => typeof v === "string")) return undefined;
  const createdAt = Number(created_at);
  const lastUsed = Number(last_used);
  if (!Number.isSafeInteger(createdAt) || !Number.isSafeInteger(lastUsed)) return undefined;
  return {
    id,
    agent,
    protocol,
    client: parsedClient as Record<string, string>,
    capabilities: keptClient({ capabilities: parsedCaps }).capabilities,
    createdAt,
    lastUsed,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const v = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const INSERT_SESSION = `INSERT INTO mcp_sessions (id, agent, protocol, client, capabilities, created_at, last_used)
  VALUES ($1, $2, $3, $4, $5, $6::bigint, $7::bigint) ON CONFLICT (id) DO NOTHING`;
const SELECTED = "id, agent, protocol, client, capabilities, created_at::text, last_used::text";

/** What a server's sessions ask of the shared store. */
export interface SessionRows {
  /** Keeps a session that has just been opened. */
  put(row: SessionRow): void;
  /** The agent's session with this id, marked used at `now`; undefined when there is none (or it is another agent's). */
  touch(id: string, agent: string, now: number): SessionRow | undefined;
  /** Removes one session; whether there was one. */
  remove(id: string): boolean;
  /** Removes every session of the agent; their ids. */
  removeAgent(agent: string): string[];
  /** Removes every session last used before `before`; their ids. */
  removeIdle(before: number): string[];
  /** How many sessions the agent holds, and how many there are in all. */
  count(agent: string): { own: number; total: number };
  /** The agent's least recently used session, leaving out the ids given (busy here); undefined when none is left. */
  leastUsed(agent: string, except: string[]): string | undefined;
  /**
   * Removes the agent's sessions past the `keep` most recently used, never one of `except` (which count towards
   * `keep`); their ids.
   */
  trim(agent: string, keep: number, except: string[]): string[];
}

/** The session rows in PostgreSQL; each method is one statement. Throws what the store refused. */
export class PgSessionRows implements SessionRows {
  constructor(private readonly pg: SyncPg) {}

  put(row: SessionRow): void {
    this.pg.query(INSERT_SESSION, sessionColumns(row));
  }
  touch(id: string, agent: string, now: number): SessionRow | undefined {
    const [row] = this.pg.query(
      `UPDATE mcp_sessions SET last_used = GREATEST(last_used, $3::bigint) WHERE id = $1 AND agent = $2 RETURNING ${SELECTED}`,
      [id, agent, now],
    );
    return row ? sessionOfRow(row) : undefined;
  }
  remove(id: string): boolean {
    return this.pg.query("DELETE FROM mcp_sessions WHERE id = $1 RETURNING id", [id]).length > 0;
  }
  removeAgent(agent: string): string[] {
    return this.ids(this.pg.query("DELETE FROM mcp_sessions WHERE agent = $1 RETURNING id", [agent]));
  }
  removeIdle(before: number): string[] {
    return this.ids(this.pg.query("DELETE FROM mcp_sessions WHERE last_used < $1::bigint RETURNING id", [before]));
  }
  count(agent: string): { own: number; total: number } {
    const [row] = this.pg.query<{ own: string; total: string }>(
      "SELECT (count(*) FILTER (WHERE agent = $1))::text AS own, count(*)::text AS total FROM mcp_sessions",
      [agent],
    );
    return { own: Number(row?.own ?? 0), total: Number(row?.total ?? 0) };
  }
  leastUsed(agent: string, except: string[]): string | undefined {
    const [row] = this.pg.query<{ id: string }>(
      `SELECT id FROM mcp_sessions WHERE agent = $1 AND id NOT IN (SELECT jsonb_array_elements_text(($2::text)::jsonb))
         ORDER BY last_used, created_at LIMIT 1`,
      [agent, JSON.stringify(except)],
    );
    return row?.id;
  }

  trim(agent: string, keep: number, except: string[]): string[] {
    return this.ids(
      this.pg.query(
        `DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions WHERE agent = $1
           AND id NOT IN (SELECT jsonb_array_elements_text(($2::text)::jsonb))
           ORDER BY last_used DESC, created_at DESC OFFSET $3::bigint) RETURNING id`,
        [agent, JSON.stringify(except), Math.max(0, keep - except.length)],
      ),
    );
  }

  private ids(rows: Record<string, unknown>[]): string[] {
    return rows.map((r) => String(r.id));
  }
}
