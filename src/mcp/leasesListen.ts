/**
 * A replica's LISTEN for the changes its subscribers' watchers tell (leases.ts), on a connection of its own. Bun's
 * client makes a dropped LISTEN connection again by itself, backing off; the notices sent while it was down are
 * lost. So each time the LISTEN is made again (`again`), every subscription held here is told its resource may
 * have changed (a hint, as every notice is), and a LISTEN not back by the time the store answers again is made anew
 * at once, rather than after a backoff grown through a long outage. deliver() is the one way a notice reaches a
 * client's stream held here, whichever replica's worker saw the change: a 2025-11-25 session's through the HTTP
 * front's sessions (its GET stream may be on any replica, whichever its subscription was made through), else the
 * connection's own subscriptions.
 */
import { type JSONRPCMessage, ProtocolError } from "@modelcontextprotocol/server";
import { SQL } from "bun";
import { CHANNEL, type Lease } from "../gate/store/pgLeases.ts";
import { type Looked, MAX_SUBSCRIPTIONS } from "./subscriptions.ts";

/** A subscription this replica holds the client's stream for. */
export interface Local {
  uri: string;
  tell: (uri: string) => void;
}

/** The HTTP front's 2025-11-25 sessions, as a notice reaches them. */
export interface Reach {
  /** the sessions whose GET stream is open on this replica */
  streaming(): string[];
  /** sends `message` on the session's GET stream if it is here; false when it is not */
  deliver(session: string, message: JSONRPCMessage): boolean;
  /** closes this replica's copy of a session ended on another (its stream with it); its row is gone already */
  end(session: string): void;
}

/** A subscription of a session's, told on whichever replica holds its stream. */
export interface Subscriber {
  session: string;
  uri: string;
}

/**
 * Hands a change of a watcher to one subscription: the one way a notice reaches a client's stream, whichever
 * replica's worker saw it. A session's goes through `reach` to its stream, if that is here (false when not).
 */
export function deliver(to: Local | Subscriber, reach?: Reach): boolean {
  if ("tell" in to) {
    to.tell(to.uri);
    return true;
  }
  const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: to.uri } } as const;
  return reach?.deliver(to.session, message) ?? false;
}

/** What the store's refusal is to a client subscribing: the store unnamed (it is the operator's); nothing thrown. */
export function unavailable(): ProtocolError {
  return new ProtocolError(-32000, "this server's shared store did not answer, so the subscription was not made", {
    code: "core.store.unavailable",
    hint: "subscribe again in a moment",
  });
}

export class Listening {
  private sql: SQL | undefined;
  private stop: (() => Promise<void>) | undefined;
  private listens = 0;
  /** the LISTEN count when the store was last found unreachable; undefined while it answers */
  private lostAt: number | undefined;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly heard: (id: string) => void,
    private readonly again: () => void,
  ) {}

  /**
   * LISTENs on `url` for changes told: `heard` is handed each watcher's id; `again` is called each time the LISTEN
   * is made again after a drop. Throws what the store refused.
   */
  static async start(url: string, heard: (id: string) => void, again: () => void): Promise<Listening> {
    const listening = new Listening(url, heard, again);
    await listening.open();
    return listening;
  }

  /** The store did not answer: the LISTEN may be down too. */
  lost(): void {
    this.lostAt ??= this.listens;
  }

  /** The store answers again: a LISTEN not made again since it was lost is made anew now. */
  async back(): Promise<void> {
    const since = this.lostAt;
    this.lostAt = undefined;
    if (since === undefined || this.listens > since || this.closed) return;
    const old = this.sql;
    await this.open().catch(() => {
      this.lostAt = since; // not yet: tried again at the next answer
    });
    if (this.sql !== old) void old?.close().catch(() => {});
  }

  /** Stops listening, and closes its connection (at once, a query under way or not, with `timeout: 0`). */
  async close(options?: { timeout: number }): Promise<void> {
    this.closed = true;
    if (options === undefined) await this.stop?.().catch(() => {});
    await this.sql?.close(options).catch(() => {});
  }

  private async open(): Promise<void> {
    const sql = new SQL(this.url, { max: 1, connectionTimeout: 10 });
    try {
      const sub = await sql.listen(CHANNEL, this.heard, () => {
        this.listens += 1;
        if (this.listens > 1) this.again();
      });
      this.stop = () => sub.unlisten();
      this.sql = sql;
    } catch (err) {
      await sql.close().catch(() => {});
      throw err;
    }
  }
}

/** The store's writes under way (and first reads of leases taken over), so a stopping replica lets them finish. */
export class Writes {
  private readonly pending = new Set<Promise<unknown>>();

  /** Tracks `p` until it settles, and gives it back. */
  track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  /** Resolves once every write tracked now is over. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}

/** Waits for `p`, or `ms`, whichever is first. */
export async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([p, late]);
  clearTimeout(timer);
}

/** The most watchers one replica runs at once; past it, a watcher waits for a replica with room. */
export const MAX_WORKERS = 256;
/** The most of one agent's watchers one replica runs, so one agent's many cannot leave another's unwatched. */
export const MAX_WORKERS_PER_AGENT = MAX_SUBSCRIPTIONS;

/** A watcher a replica holds the lease of. */
export interface Worker extends Looked {
  lease: Lease;
  /** the agent whose subscriptions it watches */
  agent: string;
  digest: string | null;
}
