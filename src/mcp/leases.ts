/**
 * Resource subscriptions across a server's replicas, on a PostgreSQL store (store/pgLeases.ts holds the rows and
 * their rules). A client's subscription is read once where it is made, as on one server, then recorded in the store
 * against the watcher of its agent and URI. Each watcher is run by the one replica holding its lease: this replica's
 * workers look at theirs as subscriptionReads.ts's watchers do (a file's fstat, the grants, a poll), read again
 * through the gate when one moved, and tell a change by a fenced write that NOTIFYs every replica. Each replica
 * LISTENs, and tells each subscription whose stream it holds (deliver(); leasesSessions.ts for a session's,
 * wherever it was made). Every second it renews its leases (a worker refused stops) and the subscriptions whose
 * streams it holds, drops those of a replica gone, and claims the leases that ran out, a crashed replica's watchers
 * included, up to its bound. A claimed watcher is read at once and compared with the digest last told, so a change
 * made while no replica watched is told. Loaded only when `mcp serve --http` runs on a PostgreSQL store.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { SQL } from "bun";
import type { AgentOrigin } from "../core/call.ts";
import { LEASE_MS, PgLeases, RENEW_MS, type Wanted, type WatcherRow, watcherId } from "../gate/store/pgLeases.ts";
import { storeFailure } from "../gate/store/pgSchema.ts";
import {
  deliver,
  Listening,
  type Local,
  MAX_WORKERS,
  MAX_WORKERS_PER_AGENT,
  unavailable,
  type Worker,
  Writes,
  within,
} from "./leasesListen.ts";
import { SessionSubscriptions, storedText } from "./leasesSessions.ts";
import { type ReadPlace, readUri, watcherOf } from "./subscriptionReads.ts";
import { digestOf, due, readAgain, TICK_MS, type Watch, type Watcher } from "./subscriptions.ts";

export { MAX_WORKERS, MAX_WORKERS_PER_AGENT } from "./leasesListen.ts";

export class SharedWatching {
  private readonly workers = new Map<string, Worker>();
  private readonly local = new Map<string, Map<string, Local>>();
  private readonly stop = new AbortController();
  private timers: ReturnType<typeof setInterval>[] = [];
  private beating: Promise<void> | undefined;
  private readonly writes = new Writes();
  private listening: Listening | undefined;
  private stopped = false;
  /** the HTTP front's 2025-11-25 sessions' subscriptions, told on whichever replica holds each one's stream */
  readonly sessions: SessionSubscriptions;

  private constructor(
    private readonly store: PgLeases,
    private readonly sql: SQL,
    /** where a claimed watcher reads, as this replica's own server would */
    private readonly place: ReadPlace,
    private readonly session: string,
    private readonly now: () => number,
  ) {
    this.sessions = new SessionSubscriptions(store, now, this);
  }

  /**
   * Starts this replica's part: LISTENs for changes told, and renews, sweeps and claims every second. Refuses
   * (core.store.unavailable, without the password) a store it cannot listen on.
   */
  static async start(url: string, place: ReadPlace, session: string, timers = true): Promise<SharedWatching> {
    const sql = new SQL(url, { max: 2, idleTimeout: 60, connectionTimeout: 10 });
    const owner = `${hostname()} ${session}`;
    const shared = new SharedWatching(new PgLeases(sql, owner), sql, place, session, () => place.deps.clock.now());
    try {
      shared.listening = await Listening.start(
        url,
        (id) => shared.heard(id),
        () => shared.hint(),
      );
    } catch (err) {
      await sql.close().catch(() => {});
      throw storeFailure(url, err);
    }
    // without timers (a test), beat() and look() are called by hand
    if (timers)
      shared.timers = [setInterval(() => void shared.beat(), RENEW_MS), setInterval(() => void shared.look(), TICK_MS)];
    for (const t of shared.timers) t.unref?.();
    return shared;
  }

  /** Whether this replica may run one more of `agent`'s watchers: under its bound, and under the agent's share of it. */
  private hasRoom(agent: string): boolean {
    if (this.workers.size >= MAX_WORKERS) return false;
    let own = 0;
    for (const w of this.workers.values()) if (w.agent === agent) own++;
    return own < MAX_WORKERS_PER_AGENT;
  }

  /** How many watchers this replica runs now. */
  get running(): number {
    return this.workers.size;
  }

  /**
   * The Watch of one connection's subscriptions: each URI read once as resources/read would (refused as it would),
   * recorded in the store, its changes from any replica's worker handed to `tell` (a 2025-11-25 session's to its
   * stream, wherever that is). This replica claims a new watcher while it has room.
   */
  watch(place: ReadPlace, tell: (uri: string) => void): Watch {
    return async (uri, origin, signal, of) => {
      const first = JSON.stringify((await readUri(place, uri, origin, signal)).contents);
      const agent = storedText(origin.name);
      const client = storedText(origin.client);
      const id = watcherId(agent, uri);
      // a session's subscription is one row however many replicas it was made through, and outlives its stream here
      const byId = of !== undefined && this.sessions.reached;
      const sub = byId ? `${of} ${id}` : randomUUID();
      const wanted = { agent, uri, client, digest: digestOf(first) };
      await this.record(sub, wanted);
      if (byId) return { watcher: this.sessions.watcher(sub, wanted), first };
      const mine = this.local.get(id) ?? new Map<string, Local>();
      this.local.set(id, mine);
      mine.set(sub, { uri, tell });
      const watcher: Watcher = {
        every: Number.POSITIVE_INFINITY,
        moved: () => false,
        read: async () => undefined,
        close: () => {
          mine.delete(sub);
          if (mine.size === 0 && this.local.get(id) === mine) this.local.delete(id);
          void this.track(this.store.unsubscribe(sub)).catch(() => {});
        },
      };
      return { watcher, first };
    };
  }

  /** Records subscription `sub` (held here), claiming its watcher when new and there is room; refuses unavailable(). */
  async record(sub: string, wanted: Wanted): Promise<void> {
    let claimed: WatcherRow | undefined;
    try {
      claimed = await this.track(this.store.subscribe(sub, wanted, this.now(), this.hasRoom(wanted.agent)));
    } catch {
      throw unavailable();
    }
    if (claimed !== undefined) void this.run(claimed, false);
  }

  /**
   * Stops this replica's part: its leases are given up at once (another replica claims them at its next sweep),
   * the store's writes under way are let finish, and the connections closed.
   */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.stop.abort();
    // a store that stops answering holds the stop up no longer than a lease lasts: what was not given up by then
    // runs out, for the other replicas to claim, as a crashed replica's does
    await within(this.giveUp(), LEASE_MS);
    void this.listening?.close({ timeout: 0 });
    await this.sql.close({ timeout: 0 }).catch(() => {});
  }

  /** The writes under way let finish, this replica's leases given up, the sessions' subscriptions let go. */
  private async giveUp(): Promise<void> {
    await this.beating;
    await this.idle();
    const leases = [...this.workers.values()].map((w) => w.lease);
    for (const w of this.workers.values()) w.watcher.close();
    this.workers.clear();
    // the sessions' subscriptions are kept for where they go on (leasesSessions.ts), any other's goes; leases given up
    await this.store.letGo().catch(() => {});
    await this.store.leave().catch(() => {});
    await this.store.release(leases).catch(() => {});
    await this.listening?.close();
  }

  /** Resolves once the store's writes and the first reads of leases taken over, under way now, are over. */
  idle(): Promise<void> {
    return this.writes.idle();
  }

  /** The LISTEN was made again after a drop, which may have lost notices: each subscription held here is told. */
  private hint(): void {
    for (const held of this.local.values()) for (const local of held.values()) deliver(local);
    this.sessions.tell(null);
  }

  /** A change told of watcher `id`: each subscription to it whose stream is here is told. */
  private heard(id: string): void {
    for (const local of this.local.get(id)?.values() ?? []) deliver(local);
    this.sessions.tell(id);
  }

  track<T>(p: Promise<T>): Promise<T> {
    return this.writes.track(p);
  }

  /**
   * One second's work (the timer's): renew this replica's leases (a worker refused stops), hold its subscriptions,
   * sweep those of replicas gone, claim the leases that ran out. A store that fails is tried again the next second.
   */
  beat(): Promise<void> {
    if (this.beating !== undefined || this.stopped) return Promise.resolve();
    this.beating = (async () => {
      try {
        const now = this.now();
        const kept = await this.store.renew(
          [...this.workers.values()].map((w) => w.lease),
          now,
        );
        for (const [id, w] of this.workers) if (!kept.has(id)) this.drop(id, w);
        await Promise.all([this.store.hold(now), this.sessions.hold()]);
        await this.listening?.back();
        await this.store.sweep(now);
        if (this.stopped) return;
        const claimed = await this.store.claimExpired(now, MAX_WORKERS - this.workers.size, MAX_WORKERS_PER_AGENT);
        // read in the background: a slow read (an upstream's) never holds the renewals up
        for (const row of claimed) void this.track(this.run(row, true));
      } catch {
        // the store did not answer: leases not renewed for 15 s are another replica's, and their workers refused
        this.listening?.lost();
      } finally {
        this.beating = undefined;
      }
    })();
    return this.beating;
  }

  /**
   * Runs the watcher of a lease just claimed. One taken over (`readNow`) is read at once, and resolves once that
   * read is told: a change while no replica watched it is told. One claimed as it was subscribed starts from the
   * subscriber's first read.
   */
  private async run(row: WatcherRow, readNow: boolean): Promise<void> {
    if (this.stopped) return;
    const origin: AgentOrigin = {
      kind: "agent",
      name: row.agent,
      client: row.client,
      session: this.session,
      transport: "http",
    };
    let watcher: Watcher;
    try {
      watcher = watcherOf(this.place, row.uri, origin);
    } catch {
      return; // what it names cannot be watched here now: the lease runs out, and another replica tries
    }
    this.workers.get(row.id)?.watcher.close();
    const worker = {
      lease: { id: row.id, fence: row.fence },
      agent: row.agent,
      watcher,
      digest: row.digest,
      lookedAt: this.now(),
      busy: false,
      missed: false,
    };
    this.workers.set(row.id, worker);
    if (readNow) await this.reread(row.id, worker);
  }

  /** A worker refused or its lease lost: it stops watching. */
  private drop(id: string, w: Worker): void {
    if (this.workers.get(id) !== w) return;
    this.workers.delete(id);
    w.watcher.close();
  }

  /**
   * Looks at each worker whose time came (the timer's work, every 250 ms), reads again those that moved, and tells
   * the changed ones; a worker whose telling is refused stops. Resolves once those reads and writes are over.
   */
  look(): Promise<void> {
    const at = this.now();
    const reads: Promise<void>[] = [];
    for (const [id, w] of this.workers) if (due(w, at)) reads.push(this.reread(id, w));
    return Promise.all(reads).then(() => {});
  }

  private async reread(id: string, w: Worker): Promise<void> {
    const text = await readAgain(w, this.stop.signal);
    if (text === undefined || this.workers.get(id) !== w) return;
    const digest = digestOf(text);
    if (digest === w.digest) return;
    let told: boolean;
    try {
      told = await this.track(this.store.tell(w.lease, digest, this.now()));
    } catch {
      w.missed = true; // the store did not answer: read again, and told then
      return;
    }
    if (told) w.digest = digest;
    else this.drop(id, w);
  }
}
