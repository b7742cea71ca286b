/**
 * The 2025-11-25 HTTP sessions' resource subscriptions on a PostgreSQL store (leases.ts runs their watchers). A
 * session's subscription is one row, `<session> <watcher>`, whichever replica it was made through, and it belongs
 * to the session, not to a replica: a session continued on another replica keeps its subscriptions. A change told
 * of a watcher reaches each session subscribed to it on the replica holding that session's GET stream
 * (deliver(), through the HTTP front's sessions), whichever replica the subscription was made through. The
 * replica a session's stream (or the session itself, built again) moves to takes its rows back: it renews them
 * from then on, and holds them in the session's Subscriptions, so the client may unsubscribe through it. A copy
 * of a session closed here (the replica stopping, an idle copy) lets its rows go, for the replica the stream moves
 * to; rows no replica takes back within 15 s are swept. A session that ends (its DELETE, a person, its agent
 * locked, idle) takes its rows with it.
 */
import { type PgLeases, type Wanted, watcherId } from "../gate/store/pgLeases.ts";
import { deliver, type Reach } from "./leasesListen.ts";
import type { Subscriptions, Watcher } from "./subscriptions.ts";

/** What the shared watching lends: its tracking of writes under way, and its recording of a subscription. */
export interface Recorder {
  /** tracks a write, so a stopping replica lets it finish */
  track<T>(p: Promise<T>): Promise<T>;
  /** records a subscription (held here), claiming its watcher when there is room; refuses as a Watch does */
  record(sub: string, wanted: Wanted): Promise<void>;
}

export class SessionSubscriptions {
  private reach: Reach | undefined;

  constructor(
    private readonly store: PgLeases,
    private readonly now: () => number,
    private readonly host: Recorder,
  ) {}

  private track<T>(p: Promise<T>): Promise<T> {
    return this.host.track(p);
  }

  /** Whether the HTTP front's sessions were handed over: only then is a subscription kept by its session. */
  get reached(): boolean {
    return this.reach !== undefined;
  }

  /** From now on, changes are told to the sessions `reach` holds the streams of. */
  use(reach: Reach): void {
    this.reach = reach;
  }

  /**
   * The watcher a session's subscription `sub` is held by here: closing it lets go of nothing (the session may go
   * on elsewhere; the client's unsubscribe drops the row, Leases.unsubscribed); subscribing again records it again.
   */
  watcher(sub: string, wanted?: Wanted): Watcher {
    return {
      every: Number.POSITIVE_INFINITY,
      moved: () => false,
      read: async () => undefined,
      close: () => {},
      ...(wanted ? { again: () => this.host.record(sub, wanted) } : {}),
    };
  }

  /**
   * Session `session`'s stream (or the session, built again) is on this replica now: its subscriptions are held
   * here from now on, and each by `subs` too. A store that does not answer leaves them to the next time (they are
   * told wherever the stream is, held or not).
   */
  async takeBack(session: string, subs?: Subscriptions): Promise<void> {
    try {
      const rows = await this.track(this.store.takeBack(session, this.now()));
      for (const { sub, uri } of rows) if (subs && !subs.has(uri)) subs.adopt(uri, this.watcher(sub));
    } catch {
      // held by nobody, they are dropped in 15 s unless taken back by then
    }
  }

  /**
   * Renews the subscriptions of the sessions whose stream is here (the beat's work), wherever they were made: a
   * replica that made one and then let it go leaves it held. The streams here of sessions ended elsewhere end.
   * Throws what the store threw.
   */
  async hold(): Promise<void> {
    const streaming = this.reach?.streaming() ?? [];
    await this.store.holdSessions(streaming, this.now());
    // a session ended on another replica (its DELETE, its agent locked) has its copy here closed, its stream with it
    for (const id of await this.store.ended(streaming)) this.reach?.end(id);
  }

  /**
   * Session `session`'s client (agent `agent`) unsubscribed from `uri`: the session's row goes, on every replica,
   * whichever replica it was made through and whether this one holds it or not. Refuses nothing.
   */
  unsubscribed(session: string, agent: string, uri: string): void {
    if (!this.reached) return;
    const sub = `${session} ${watcherId(storedText(agent), uri)}`;
    void this.track(this.store.unsubscribe(sub)).catch(() => {});
  }

  /** Session `session`'s copy here closed: its subscriptions are kept for the replica it goes on through. */
  letGo(session: string): void {
    void this.track(this.store.letGo(session)).catch(() => {});
  }

  /** Session `session` ended on every replica: its subscriptions are dropped, and each watcher left with none. */
  ended(session: string): void {
    void this.track(this.store.endSession(session)).catch(() => {});
  }

  /**
   * Tells the sessions whose GET stream is here of their subscriptions to watcher `id` (to any, when null): one
   * read of the store, none while no stream is here.
   */
  tell(id: string | null): void {
    const streaming = this.reach?.streaming() ?? [];
    if (streaming.length === 0) return;
    void this.track(this.store.subscribers(id, streaming))
      .then((subs) => {
        for (const s of subs) deliver(s, this.reach);
      })
      .catch(() => {});
  }
}

/** Text as PostgreSQL keeps it: its text holds no NUL, which a client's reported name may. */
export function storedText(text: string): string {
  return text.replaceAll("\u0000", "\ufffd");
}
