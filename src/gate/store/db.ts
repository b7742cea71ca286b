/**
 * The one database behind the grant, lock, token and rate stores, whose write lock
 * also orders the record's writers: gate.db in the data dir, bun:sqlite in WAL
 * mode with a busy timeout, so several server processes can share it. The
 * schema is the one every gate.db already has: a table is only ever added to,
 * never changed (record_checkpoint, where an older rta kept the record's
 * checkpoint, is read only to carry it over to record.checkpoint).
 * Refuses a data dir it cannot make or write as core.store.unavailable.
 */
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { RtaError } from "../../core/errors.ts";
import { BUSY_TIMEOUT_MS } from "../storeLock.ts";

/** The store's file name inside the data dir. */
export const GATE_STORE_FILE = "gate.db";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS grants (
  id TEXT PRIMARY KEY,
  target TEXT NOT NULL,
  record TEXT,
  agent TEXT NOT NULL,
  connection TEXT,
  profile TEXT,
  host TEXT,
  args_digest TEXT,
  max_uses INTEGER,
  uses INTEGER NOT NULL DEFAULT 0,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  issued_by TEXT NOT NULL,
  build TEXT NOT NULL,
  digest TEXT,
  revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS grants_by_agent ON grants (agent, target);
CREATE TABLE IF NOT EXISTS grant_args (
  id TEXT PRIMARY KEY,
  args TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER,
  issued_by TEXT NOT NULL,
  revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS locks (
  id TEXT PRIMARY KEY,
  agent TEXT,
  target TEXT,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER,
  issued_by TEXT NOT NULL,
  lifted_at INTEGER
);
CREATE TABLE IF NOT EXISTS rate_buckets (
  agent TEXT NOT NULL COLLATE NOCASE,
  capability TEXT NOT NULL,
  level INTEGER NOT NULL,
  at INTEGER NOT NULL,
  spent INTEGER NOT NULL,
  PRIMARY KEY (agent, capability)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS record_checkpoint (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n INTEGER NOT NULL,
  mac TEXT NOT NULL,
  size INTEGER NOT NULL
);
`;

/** Opens (creating when missing) gate.db at `file`; refuses with core.store.unavailable when it cannot. */
export function openGateDb(file: string): Database {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const db = new Database(file, { create: true, strict: true });
    chmodSync(file, 0o600);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec(SCHEMA);
    return db;
  } catch (err) {
    const e = (err as NodeJS.ErrnoException).code;
    const why =
      e === "EEXIST" || e === "ENOTDIR"
        ? "the data dir is not a directory"
        : e === "EACCES" || e === "EPERM"
          ? "the data dir is not writable by this user"
          : (err as Error).message;
    throw new RtaError(
      "core.store.unavailable",
      `the grant store could not be opened: ${why}`,
      "check that the data dir is yours and writable (rta doctor will say more)",
    );
  }
}

/** Which rows a person ends (revokes or lifts): one by id, every one of an agent's, or all of them. */
export interface Chosen {
  id?: string;
  agent?: string;
  all?: boolean;
}

/**
 * An agent's name as a person's word matches it in SQL: whatever its case, as
 * namesAgent() (core/agentName.ts) says, for what stops or takes back. A
 * grant's or a token's own agent is matched exactly, never with this.
 */
export const NAMES_AGENT = "agent = $agent COLLATE NOCASE";

/**
 * Ends the selected rows of `table` that `live` says are still live, setting
 * `endColumn` to `now`; returns how many were. The one shape of revoking a
 * grant or a token and lifting a lock. By id first, then by agent (whatever
 * its case: taking back is the safe way to be broad), then all; a selection
 * naming none ends nothing.
 */
export function endSelected(
  db: Database,
  row: { table: string; endColumn: string; live: string },
  by: Chosen,
  now: number,
): number {
  const set = `UPDATE ${row.table} SET ${row.endColumn} = $now WHERE ${row.live}`;
  if (by.id) return db.query(`${set} AND id = $id`).run({ id: by.id, now }).changes;
  if (by.agent) return db.query(`${set} AND ${NAMES_AGENT}`).run({ agent: by.agent, now }).changes;
  if (by.all) return db.query(set).run({ now }).changes;
  return 0;
}

/**
 * What a grant or lock can name for a call: the capability, its area and, for a
 * plugin's capability, the plugin. Three slots, bound as plain parameters: a
 * list expanded in SQL (json_each) costs more than the rest of the query.
 * Refuses (a plain Error: a bug, not a person's input) more than three.
 */
export function targetParams(targets: string[]): { t1: string | null; t2: string | null; t3: string | null } {
  if (targets.length > 3) throw new Error("a call has at most three gate targets");
  return { t1: targets[0] ?? null, t2: targets[1] ?? null, t3: targets[2] ?? null };
}

/** A new row's id: its kind's letter and 8 hex digits (g for a grant, l for a lock, t for a token). */
export function newRowId(kind: "g" | "l" | "t"): string {
  return `${kind}${randomBytes(4).toString("hex")}`;
}
