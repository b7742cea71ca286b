/**
 * The gate's store: one gate.db in the data dir holding grants, locks, tokens
 * and the record's checkpoint, each kept by its own module under store/ over
 * the one database and its one write lock. This is the value Deps hands out;
 * its methods are the ones the pipeline, the servers and the operator actions
 * call. It refuses nothing a person typed (gate/operator does); it refuses a
 * store it cannot open or a write lock another process holds too long, as
 * core.store.unavailable.
 */
import type { Database } from "bun:sqlite";
import { dirname, join } from "node:path";
import { RtaError } from "../core/errors.ts";
import type { RecordCheckpoint } from "../record/append.ts";
import { type FileId, NameProbe, sameFile } from "../record/fileId.ts";
import { CheckpointStore, RECORD_CHECKPOINT_FILE } from "./store/checkpoint.ts";
import { type Chosen, openGateDb } from "./store/db.ts";
import { type Grant, type GrantQuery, GrantStore, type NewGrant } from "./store/grants.ts";
import { type Lock, LockStore, type NewLock } from "./store/locks.ts";
import { RateStore, type Taken } from "./store/rates.ts";
import { ShmFile } from "./store/shm.ts";
import { type Token, TokenStore } from "./store/tokens.ts";
import { StoreWriteLock } from "./storeLock.ts";

export { RECORD_CHECKPOINT_FILE } from "./store/checkpoint.ts";
export { GATE_STORE_FILE } from "./store/db.ts";
export { type Grant, type GrantQuery, type GrantState, grantState, type NewGrant } from "./store/grants.ts";
export type { Lock } from "./store/locks.ts";
export type { Token } from "./store/tokens.ts";

/**
 * What the gate asks of a store, whichever keeps it: GateStore (gate.db in the data dir, the default) or
 * store/pgStore.ts's PgGateStore (PostgreSQL, shared by a server's replicas).
 */
export type StoreTables = Pick<
  GateStore,
  | "close"
  | "issue"
  | "spend"
  | "giveBack"
  | "lastMatching"
  | "staleMatching"
  | "list"
  | "grantArgs"
  | "get"
  | "revoke"
  | "liveGrants"
  | "addToken"
  | "tokenByHash"
  | "tokens"
  | "revokeTokens"
  | "lock"
  | "lockFor"
  | "locks"
  | "lift"
  | "takeToken"
  | "recordCheckpoint"
  | "appendRecordLine"
  | "commitHeader"
>;

export class GateStore {
  private readonly db: Database;
  private readonly grants: GrantStore;
  private readonly lockRows: LockStore;
  private readonly tokenRows: TokenStore;
  private readonly checkpoint: CheckpointStore;
  private readonly rates: RateStore;
  /** the device and inode of the file opened, to tell it from another put at its name */
  private readonly opened: FileId | undefined;
  /** asks what gate.db's name holds (see stillOpened) */
  private readonly named: NameProbe;
  /** gate.db's -shm file, opened at the first ask; null where it cannot be (see store/shm.ts) */
  private shmFile: ShmFile | null | undefined;

  /** Opens (creating when missing) the store at `file`; refuses with core.store.unavailable when it cannot. */
  constructor(readonly file: string) {
    this.db = openGateDb(file);
    this.named = new NameProbe(file);
    this.opened = this.named.id();
    const writeLock = new StoreWriteLock(this.db, file);
    this.grants = new GrantStore(this.db, writeLock);
    const shm = () => this.shm();
    this.lockRows = new LockStore(this.db, writeLock, shm);
    this.tokenRows = new TokenStore(this.db, writeLock);
    this.rates = new RateStore(this.db, writeLock);
    this.checkpoint = new CheckpointStore(this.db, writeLock, join(dirname(file), RECORD_CHECKPOINT_FILE), shm);
  }

  close(): void {
    this.checkpoint.close();
    this.db.close();
    // only now: closing it drops this process's POSIX locks on the file, SQLite's among them
    this.shmFile?.close();
    this.shmFile = null;
  }

  /** gate.db's -shm file, opened at the first ask (SQLite has made it by then); undefined where it cannot be. */
  private shm(): ShmFile | undefined {
    if (this.shmFile === undefined) this.shmFile = ShmFile.open(this.file) ?? null;
    return this.shmFile ?? undefined;
  }

  /**
   * gate.db's wal-index header as it is now (store/shm.ts): it changes at every commit of any process, so two alike
   * say nothing was written between them; undefined where it cannot be read (then nothing can be told from it).
   */
  commitHeader(): Buffer | undefined {
    return this.shm()?.readHeader();
  }

  // Grants (store/grants.ts).

  issue(grant: NewGrant, args?: string): Grant {
    return this.grants.issue(grant, args);
  }

  /** Spends one use of a live grant that matches, atomically across processes; undefined when none is live. */
  spend(q: GrantQuery): Grant | undefined {
    return this.grants.spend(q);
  }

  /** Gives back a use spent by a call that was then refused before it ran. */
  giveBack(id: string): void {
    this.grants.giveBack(id);
  }

  /** The most recent grant that would match but for time or uses: to say whether it expired or was spent. */
  lastMatching(q: GrantQuery): Grant | undefined {
    return this.grants.lastMatching(q);
  }

  /** The newest live grant that would match but stands on another build of the plugin: to say it changed. */
  staleMatching(q: GrantQuery): Grant | undefined {
    return this.grants.staleMatching(q);
  }

  list(): Grant[] {
    return this.grants.list();
  }

  /** The arguments each --args grant was issued with, as the person wrote them, by grant id. */
  grantArgs(): Map<string, string> {
    return this.grants.argsTexts();
  }

  get(id: string): Grant | undefined {
    return this.grants.get(id);
  }

  /**
   * Revokes grants by id, by agent (whatever its case: taking back is the safe way to be broad), or all; returns
   * how many were live. Refuses as lock() does.
   */
  revoke(by: Chosen, now: number): number {
    return this.grants.revoke(by, now);
  }

  /** An agent's own live grants, for its `rta://grants` resource. */
  liveGrants(agent: string, now: number): Grant[] {
    return this.grants.live(agent, now);
  }

  // Tokens (store/tokens.ts).

  /** Stores a token's hash, never the token; returns the row. */
  addToken(agent: string, hash: string, now: number, expiresAt: number | null, issuedBy: string): Token {
    return this.tokenRows.add(agent, hash, now, expiresAt, issuedBy);
  }

  /** The live token with this hash, if any. */
  tokenByHash(hash: string, now: number): Token | undefined {
    return this.tokenRows.byHash(hash, now);
  }

  tokens(): Token[] {
    return this.tokenRows.list();
  }

  /** Revokes tokens by id, by agent (whatever its case), or all; returns how many were live. Refuses as lock() does. */
  revokeTokens(by: Chosen, now: number): number {
    return this.tokenRows.revoke(by, now);
  }

  // Locks (store/locks.ts).

  /** Refuses with core.store.unavailable, naming the holder, when another process holds the store past the wait. */
  lock(lock: NewLock): Lock {
    return this.lockRows.lock(lock);
  }

  /**
   * The lock that stops this agent's call to one of `targets`, if any. Refuses (core.store.unavailable) while
   * the store's name holds another file than the one opened, or none (see stillOpened).
   */
  lockFor(agent: string, targets: string[], now: number): Lock | undefined {
    this.stillOpened();
    return this.lockRows.lockFor(agent, targets, now);
  }

  /**
   * Refuses (core.store.unavailable) while gate.db's name holds another file than the one this store opened, or
   * none. The CLI writes its locks, lifts and revokes to the file the name holds: one removed or replaced under a
   * running server (a data dir cleared to start over) would take them where the server never looks, and it would
   * go on spending grants the person believes gone. Asked at every agent call, as a lock is (one statx).
   */
  private stillOpened(): void {
    const now = this.opened && this.named.id();
    if (now && this.opened && sameFile(now, this.opened)) return;
    throw new RtaError(
      "core.store.unavailable",
      "the grant store was removed or replaced since the server started",
      "the person running rta can restart the server, so it reads the store the CLI writes",
    );
  }

  locks(): Lock[] {
    return this.lockRows.list();
  }

  /**
   * Lifts locks by id, by agent (its own locks, whatever the case they were set in, not the ones on everyone),
   * or all; returns how many were active. Refuses as lock() does.
   */
  lift(by: Chosen, now: number): number {
    return this.lockRows.lift(by, now);
  }

  // Rate limits (store/rates.ts).

  /** Takes one call from the agent's bucket for `capability` (perMinute a minute), shared by every server of the store. */
  takeToken(agent: string, capability: string, perMinute: number, now: number): Taken {
    return this.rates.takeToken(agent, capability, perMinute, now);
  }

  // The record's checkpoint (store/checkpoint.ts).

  /** The record's checkpoint; all zero before the first keyed line. */
  recordCheckpoint(): RecordCheckpoint {
    return this.checkpoint.current();
  }

  /** Runs `append` holding the store's write lock and keeps the checkpoint it returns (see CheckpointStore). */
  appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void {
    this.checkpoint.append(append, undo);
  }
}
