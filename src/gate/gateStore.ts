/**
 * The grant and lock store: bun:sqlite in the data dir, in WAL mode with a
 * busy timeout, so several server processes can share it. Spending a use is
 * one BEGIN IMMEDIATE transaction: the write lock is taken before the grant is
 * read, so two servers never spend one use twice.
 */
import { Database, type Statement } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { RtaError } from "../core/errors.ts";
import type { RecordCheckpoint } from "../record/append.ts";
import { BUSY_TIMEOUT_MS, StoreWriteLock } from "./storeLock.ts";

/** The store's file name inside the data dir. */
export const GATE_STORE_FILE = "gate.db";

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

/** A bearer token for MCP over HTTP: only its sha256 is kept. */
export interface Token {
  id: string;
  agent: string;
  hash: string;
  issued_at: number;
  expires_at: number | null;
  issued_by: string;
  revoked_at: number | null;
}

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
  now: number;
}

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
CREATE TABLE IF NOT EXISTS record_checkpoint (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n INTEGER NOT NULL,
  mac TEXT NOT NULL,
  size INTEGER NOT NULL
);
`;

/** The narrowing columns: a grant that sets one matches only a call with that value. */
const MATCH = `
  agent = $agent AND target IN ($t1, $t2, $t3)
  AND (record IS NULL OR record = $record)
  AND (connection IS NULL OR connection = $connection)
  AND profile IS $profile
  AND (host IS NULL OR host = $host) AND (host IS NOT NULL OR NOT $host_required)
  AND (args_digest IS NULL OR args_digest = $args_digest)`;

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

export class GateStore {
  private readonly db: Database;
  private readonly findLive: Statement<Grant>;
  private readonly findAny: Statement<Grant>;
  private readonly spendOne: Statement;
  private readonly activeLock: Statement<Lock>;
  private readonly readCheckpoint: Statement<RecordCheckpoint>;
  private readonly writeCheckpoint: Statement;
  private readonly txn: { begin: Statement; commit: Statement; rollback: Statement };
  private readonly writeLock: StoreWriteLock;

  /** Opens (creating when missing) the store at `file`; refuses with core.store.unavailable when it cannot. */
  constructor(readonly file: string) {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      this.db = new Database(file, { create: true, strict: true });
      chmodSync(file, 0o600);
      this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      this.db.exec(SCHEMA);
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
    this.findLive = this.db.query(
      `SELECT * FROM grants WHERE ${MATCH} AND revoked_at IS NULL AND expires_at > $now
       AND (max_uses IS NULL OR uses < max_uses)
       ${NARROWEST_FIRST} LIMIT 1`,
    );
    this.findAny = this.db.query(`SELECT * FROM grants WHERE ${MATCH} ORDER BY issued_at DESC, rowid DESC LIMIT 1`);
    this.spendOne = this.db.query(
      "UPDATE grants SET uses = uses + 1 WHERE id = $id AND (max_uses IS NULL OR uses < max_uses)",
    );
    // A lock's agent is matched whatever its case (names are ASCII, which NOCASE folds): a lock typed
    // `claude-desktop` for the agent the record shows as Claude-Desktop must stop it, not stop nothing.
    // A grant's name stays exact: a slip there refuses, which is the safe way to be wrong.
    this.activeLock = this.db.query(
      `SELECT * FROM locks WHERE lifted_at IS NULL AND (expires_at IS NULL OR expires_at > $now)
       AND (agent IS NULL OR agent = $agent COLLATE NOCASE)
       AND (target IS NULL OR target IN ($t1, $t2, $t3))
       ORDER BY issued_at ASC LIMIT 1`,
    );
    this.readCheckpoint = this.db.query("SELECT n, mac, size FROM record_checkpoint WHERE id = 1");
    this.writeCheckpoint = this.db.query(
      "INSERT INTO record_checkpoint (id, n, mac, size) VALUES (1, $n, $mac, $size) ON CONFLICT (id) DO UPDATE SET n = $n, mac = $mac, size = $size",
    );
    this.writeLock = new StoreWriteLock(this.db, file);
    this.txn = {
      begin: this.db.query("BEGIN IMMEDIATE"),
      commit: this.db.query("COMMIT"),
      rollback: this.db.query("ROLLBACK"),
    };
  }

  close(): void {
    this.db.close();
  }

  issue(grant: NewGrant): Grant {
    for (;;) {
      const id = `g${randomBytes(4).toString("hex")}`;
      try {
        this.db
          .query(
            `INSERT INTO grants (id, target, record, agent, connection, profile, host, args_digest, max_uses, issued_at,
             expires_at, issued_by, build, digest)
             VALUES ($id, $target, $record, $agent, $connection, $profile, $host, $args_digest, $max_uses, $issued_at,
             $expires_at, $issued_by, $build, $digest)`,
          )
          .run({ id, ...grant });
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

  list(): Grant[] {
    return this.db.query<Grant, []>("SELECT * FROM grants ORDER BY issued_at ASC, rowid ASC").all();
  }

  get(id: string): Grant | undefined {
    return this.db.query<Grant, { id: string }>("SELECT * FROM grants WHERE id = $id").get({ id }) ?? undefined;
  }

  /**
   * Revokes grants by id, by agent (whatever its case: taking back is the safe way to be broad), or all; returns
   * how many were live. Refuses as lock() does.
   */
  revoke(by: { id?: string; agent?: string; all?: boolean }, now: number): number {
    return this.writeLock.operator(() => this.revokeGrants(by, now));
  }

  private revokeGrants(by: { id?: string; agent?: string; all?: boolean }, now: number): number {
    if (by.id)
      return this.db
        .query("UPDATE grants SET revoked_at = $now WHERE id = $id AND revoked_at IS NULL")
        .run({ id: by.id, now }).changes;
    if (by.agent) {
      return this.db
        .query("UPDATE grants SET revoked_at = $now WHERE agent = $agent COLLATE NOCASE AND revoked_at IS NULL")
        .run({ agent: by.agent, now }).changes;
    }
    if (by.all)
      return this.db.query("UPDATE grants SET revoked_at = $now WHERE revoked_at IS NULL").run({ now }).changes;
    return 0;
  }

  /** Stores a token's hash, never the token; returns the row. */
  addToken(agent: string, hash: string, now: number, expiresAt: number | null, issuedBy: string): Token {
    const id = `t${randomBytes(4).toString("hex")}`;
    this.db
      .query(
        "INSERT INTO tokens (id, agent, hash, issued_at, expires_at, issued_by) VALUES ($id, $agent, $hash, $now, $expires, $by)",
      )
      .run({ id, agent, hash, now, expires: expiresAt, by: issuedBy });
    return { id, agent, hash, issued_at: now, expires_at: expiresAt, issued_by: issuedBy, revoked_at: null };
  }

  /** The live token with this hash, if any. */
  tokenByHash(hash: string, now: number): Token | undefined {
    return (
      this.db
        .query<Token, { hash: string; now: number }>(
          "SELECT * FROM tokens WHERE hash = $hash AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $now)",
        )
        .get({ hash, now }) ?? undefined
    );
  }

  tokens(): Token[] {
    return this.db.query<Token, []>("SELECT * FROM tokens ORDER BY issued_at ASC, rowid ASC").all();
  }

  revokeTokens(by: { id?: string; agent?: string; all?: boolean }, now: number): number {
    if (by.id)
      return this.db
        .query("UPDATE tokens SET revoked_at = $now WHERE id = $id AND revoked_at IS NULL")
        .run({ id: by.id, now }).changes;
    if (by.agent)
      return this.db
        .query("UPDATE tokens SET revoked_at = $now WHERE agent = $agent COLLATE NOCASE AND revoked_at IS NULL")
        .run({ agent: by.agent, now }).changes;
    if (by.all)
      return this.db.query("UPDATE tokens SET revoked_at = $now WHERE revoked_at IS NULL").run({ now }).changes;
    return 0;
  }

  /** An agent's own live grants, for its `rta://grants` resource. */
  liveGrants(agent: string, now: number): Grant[] {
    return this.db
      .query<Grant, { agent: string; now: number }>(
        `SELECT * FROM grants WHERE agent = $agent AND revoked_at IS NULL AND expires_at > $now
         AND (max_uses IS NULL OR uses < max_uses) ORDER BY expires_at ASC, rowid ASC`,
      )
      .all({ agent, now });
  }

  /** Refuses with core.store.unavailable, naming the holder, when another process holds the store past the wait. */
  lock(lock: NewLock): Lock {
    const id = `l${randomBytes(4).toString("hex")}`;
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

  /** The record's checkpoint; all zero before the first keyed line. */
  recordCheckpoint(): RecordCheckpoint {
    return this.readCheckpoint.get() ?? { n: 0, mac: "", size: 0 };
  }

  /**
   * Runs `append` holding the store's write lock, handing it the checkpoint,
   * and keeps the checkpoint it returns. Record lines are so appended one at a
   * time across every process sharing the data dir, each knowing the line
   * before it. What `append` throws leaves the checkpoint as it was; when the
   * commit fails (a full disk), `undo` is called to take the line back out
   * of the file, still holding the lock where SQLite lets it be held. Once a
   * line has waited the store's 5 s for the lock in vain, the next ones wait
   * briefly until one is written (see StoreWriteLock).
   */
  appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void {
    this.writeLock.taking(() => this.txn.begin.run());
    try {
      this.writeCheckpoint.run({ ...append(this.recordCheckpoint()) });
    } catch (err) {
      this.txn.rollback.run();
      throw err;
    }
    try {
      this.txn.commit.run();
    } catch (err) {
      undo();
      if (this.db.inTransaction) this.txn.rollback.run();
      throw err;
    }
  }

  /** The lock that stops this agent's call to one of `targets`, if any. */
  lockFor(agent: string, targets: string[], now: number): Lock | undefined {
    return this.activeLock.get({ agent, ...targetParams(targets), now }) ?? undefined;
  }

  locks(): Lock[] {
    return this.db.query<Lock, []>("SELECT * FROM locks ORDER BY issued_at ASC, rowid ASC").all();
  }

  /**
   * Lifts locks by id, by agent (its own locks, whatever the case they were set in, not the ones on everyone),
   * or all; returns how many were active.
   */
  lift(by: { id?: string; agent?: string; all?: boolean }, now: number): number {
    const active = "lifted_at IS NULL AND (expires_at IS NULL OR expires_at > $now)";
    if (by.id)
      return this.db.query(`UPDATE locks SET lifted_at = $now WHERE id = $id AND ${active}`).run({ id: by.id, now })
        .changes;
    if (by.agent)
      return this.db
        .query(`UPDATE locks SET lifted_at = $now WHERE agent = $agent COLLATE NOCASE AND ${active}`)
        .run({ agent: by.agent, now }).changes;
    if (by.all) return this.db.query(`UPDATE locks SET lifted_at = $now WHERE ${active}`).run({ now }).changes;
    return 0;
  }
}

/**
 * What a grant or lock can name for a call: the capability, its area and, for a
 * plugin's capability, the plugin. Three slots, bound as plain parameters: a
 * list expanded in SQL (json_each) costs more than the rest of the query.
 */
function targetParams(targets: string[]): { t1: string | null; t2: string | null; t3: string | null } {
  if (targets.length > 3) throw new Error("a call has at most three gate targets");
  return { t1: targets[0] ?? null, t2: targets[1] ?? null, t3: targets[2] ?? null };
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
    now: q.now,
  };
}
