/**
 * The shared store's schema in PostgreSQL, as numbered migrations. They run when
 * a replica opens the store, all in one transaction under an advisory lock, so
 * two replicas starting at once never race: the second waits, then finds them
 * applied. A replica whose rta knows fewer migrations than the database holds
 * refuses to serve (core.store.unavailable), saying which versions. The
 * connection string's password is an operator secret: safeUrl() is the only
 * way this module names a store, and storeFailure() the only way it says a
 * failure, with the password taken out of the message too.
 */
import { RtaError } from "../../core/errors.ts";
import type { SyncPg } from "./pgBridge.ts";

/** The advisory lock key migrations run under: "rta" and 1, as one bigint. */
const MIGRATION_LOCK = 0x72746101;

/**
 * Every migration, in order; the Nth is schema version N+1. One is only ever
 * appended, never changed: a database at version N has run exactly the first N.
 * Times are milliseconds since the epoch; `seq` keeps insertion order, as
 * SQLite's rowid does for gate.db; `changes` is bumped by every writer of what
 * stops a call (a lock, a lift, a revoke), in the same transaction, so a
 * replica reads one row per call to know its cached locks are current.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE grants (
    id text PRIMARY KEY, seq bigserial, target text NOT NULL, record text, agent text NOT NULL, connection text,
    profile text, host text, args_digest text, max_uses bigint, uses bigint NOT NULL DEFAULT 0,
    issued_at bigint NOT NULL, expires_at bigint NOT NULL, issued_by text NOT NULL, build text NOT NULL,
    digest text, revoked_at bigint, args text
  );
  CREATE INDEX grants_by_agent ON grants (agent, target);
  CREATE TABLE tokens (
    id text PRIMARY KEY, seq bigserial, agent text NOT NULL, hash text NOT NULL UNIQUE, issued_at bigint NOT NULL,
    expires_at bigint, issued_by text NOT NULL, revoked_at bigint
  );
  CREATE TABLE locks (
    id text PRIMARY KEY, seq bigserial, agent text, target text, issued_at bigint NOT NULL, expires_at bigint,
    issued_by text NOT NULL, lifted_at bigint
  );
  CREATE TABLE rate_buckets (
    agent text NOT NULL, capability text NOT NULL, level bigint NOT NULL, at bigint NOT NULL, spent boolean NOT NULL,
    PRIMARY KEY (agent, capability)
  );
  CREATE TABLE changes (id int PRIMARY KEY CHECK (id = 1), n bigint NOT NULL);
  INSERT INTO changes (id, n) VALUES (1, 0);`,
  // the 2025-11-25 clients' HTTP sessions (pgSessions.ts): no token, no password
  `CREATE TABLE mcp_sessions (
    id text PRIMARY KEY, agent text NOT NULL, protocol text NOT NULL, client text NOT NULL, capabilities text NOT NULL,
    created_at bigint NOT NULL, last_used bigint NOT NULL
  );
  CREATE INDEX mcp_sessions_by_agent ON mcp_sessions (agent, last_used);`,
  // The watchers of resource subscriptions (pgLeases.ts): one per agent and URI, leased to one replica at a time
  // (owner, until expires_at) under a fencing token drawn from watch_fences at each claim; digest is the answer last
  // told. A subscription is held by the replica with the client's stream, renewed while it holds it.
  `CREATE SEQUENCE watch_fences;
  CREATE TABLE watchers (
    id text PRIMARY KEY, agent text NOT NULL, uri text NOT NULL, client text NOT NULL, owner text,
    fence bigint NOT NULL, expires_at bigint NOT NULL, digest text
  );
  CREATE INDEX watchers_by_expiry ON watchers (expires_at);
  CREATE TABLE watch_subscriptions (
    id text PRIMARY KEY, watcher text NOT NULL REFERENCES watchers (id) ON DELETE CASCADE, holder text NOT NULL,
    held_until bigint NOT NULL
  );
  CREATE INDEX watch_subscriptions_by_watcher ON watch_subscriptions (watcher);
  CREATE INDEX watch_subscriptions_by_holder ON watch_subscriptions (holder, held_until);`,
  // the record (pgRecord.ts). Each server process's session is its own chain: `record_sessions` keeps its
  // checkpoint (last_seq, last_mac), moved in the statement that adds its lines; a session's first line is chained to
  // the first line of the session before it (by `ord`), and `record_head` holds the last of those, so a session cut out
  // whole shows. The key is made here, once, under the migration's lock: 64 hex digits from two random UUIDs
  // (244 random bits).
  `CREATE TABLE record_key (id int PRIMARY KEY CHECK (id = 1), key text NOT NULL);
  INSERT INTO record_key (id, key)
    VALUES (1, replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
  CREATE TABLE record_head (id int PRIMARY KEY CHECK (id = 1), sessions bigint NOT NULL, mac text NOT NULL);
  INSERT INTO record_head (id, sessions, mac) VALUES (1, 0, '');
  CREATE TABLE record_sessions (
    session text PRIMARY KEY, ord bigint NOT NULL UNIQUE, prev_mac text NOT NULL, last_seq bigint NOT NULL,
    last_mac text NOT NULL
  );
  CREATE TABLE record_lines (
    id bigserial PRIMARY KEY, session text NOT NULL, seq bigint NOT NULL, line text NOT NULL, UNIQUE (session, seq)
  );`,
];

/**
 * The connection string with its password (and any query, which can carry one) left out: for every message. An `@`
 * past the host (a password with a `/`, `?` or `#` that was not percent-encoded: the host and port are then read from
 * the password's first part) says nothing but that it does not parse, so no part of that password shows.
 */
export function safeUrl(url: string): string {
  const unparsed = "postgres://(a store address that does not parse)";
  try {
    const u = new URL(url);
    if (atPastHost(u)) return unparsed;
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString();
  } catch {
    return unparsed;
  }
}

function atPastHost(u: URL): boolean {
  return `${u.pathname}${u.search}${u.hash}`.includes("@");
}

/**
 * Refuses (core.store.unavailable), before any connection, a URL with an `@` past its host: its password holds a
 * `/`, `?` or `#` that was not percent-encoded, so the host and port would be read from the password's first part,
 * and the connection would go there.
 */
export function refuseUnencoded(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  if (atPastHost(u))
    throw new RtaError(
      "core.store.unavailable",
      `the shared store at ${safeUrl(url)} could not be used: it has an @ past its host`,
      "percent-encode the password's /, ?, # and @ (%2F, %3F, %23, %40) in the store's URL",
    );
}

/** `text` percent-decoded, or as it is where it does not decode. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Every spelling of the secrets a connection string carries, longest first: its password as written (up to the
 * last `@` before the query, as a URL parser takes it, so a raw `@` stays in it), as a URL parser reads it, decoded
 * and encoded; and the value of each query parameter that names a password (`?password=`, `?sslpassword=`), which a
 * client may send too. Spelt so, a client's or a server's message that repeats one can be said without it.
 */
export function secretsOf(url: string): string[] {
  const found: string[] = [];
  const rest = url.slice(url.indexOf("://") + 3);
  const head = rest.split("?")[0] as string;
  const colon = head.indexOf(":");
  const at = head.lastIndexOf("@");
  if (colon >= 0 && at > colon) found.push(head.slice(colon + 1, at));
  try {
    const u = new URL(url);
    found.push(u.password);
    for (const [key, value] of u.searchParams) if (/pass/i.test(key)) found.push(value);
  } catch {
    // a string no URL parser reads: its raw spelling above is all there is
  }
  for (const raw of [...found]) found.push(decoded(raw));
  for (const plain of [...found]) found.push(encodeURIComponent(plain));
  return [...new Set(found.filter((f) => f.length > 0))].sort((a, b) => b.length - a.length);
}

/**
 * A failure to reach or use the store at `url`, as core.store.unavailable, with no trace of the password: the URL's,
 * or PGPASSWORD's, which the client sends when the URL carries none.
 */
export function storeFailure(url: string, err: unknown): RtaError {
  if (err instanceof RtaError) return err;
  let why = err instanceof Error ? err.message : String(err);
  const fromEnv = process.env.PGPASSWORD ? [process.env.PGPASSWORD, encodeURIComponent(process.env.PGPASSWORD)] : [];
  const secrets = [...secretsOf(url), ...fromEnv].sort((a, b) => b.length - a.length);
  for (const secret of [url, ...secrets]) why = why.split(secret).join("***");
  return new RtaError(
    "core.store.unavailable",
    `the shared store at ${safeUrl(url)} could not be used: ${why}`,
    "check that the PostgreSQL server is up and the store's URL, user and database are right",
  );
}

/**
 * Brings the database to the newest schema this rta knows, under the advisory
 * lock; returns how many migrations this call ran (0 when another replica had).
 * Refuses (core.store.unavailable) a database whose schema is newer than this
 * rta's, which it would misread.
 */
export function migrate(pg: SyncPg, url: string): number {
  const said = pg.migrate(MIGRATION_LOCK, MIGRATIONS);
  if ("newer" in said)
    throw new RtaError(
      "core.store.unavailable",
      `the shared store at ${safeUrl(url)} has schema version ${said.newer}, newer than this rta knows (${MIGRATIONS.length}): it would misread it, so it does not serve`,
      "upgrade rta on this replica to the version the other replicas run",
    );
  return said.ran;
}
