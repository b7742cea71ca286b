/**
 * A connection's resource subscriptions: `resources/subscribe` (2025-11-25)
 * and the `resourceSubscriptions` of `subscriptions/listen` (2026-07-28) both
 * land here. Each subscribed URI has one watcher, which says cheaply whether
 * its answer may have moved (gate.db's commit header, an fstat of the opened
 * file, or simply that its time came), and reads the answer again through the
 * gate when it may have: a lock or a grant taken back is met again at every
 * firing, and a refused read tells nothing. The client is told
 * (`notifications/resources/updated`) only when the answer's digest changed.
 *
 * One timer per connection, every 250 ms while anything is subscribed; no
 * more than 64 URIs are held per connection.
 */
import { createHash } from "node:crypto";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { AgentOrigin } from "../core/call.ts";

/** The most URIs one connection may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS = 64;
/** How often the watchers are looked at: none is asked more often than its own `every`. */
export const TICK_MS = 250;

/** What watches one subscribed URI. */
export interface Watcher {
  /** the least time between two looks, in ms (250 for a watched file or the grants, 5000 for a polled read) */
  readonly every: number;
  /** whether the answer may have changed since the last look: cheap, no read through the gate */
  moved(): boolean;
  /** the answer now, read again through the gate for the subscriber; undefined when it is refused (a lock) */
  read(signal: AbortSignal): Promise<string | undefined>;
  /** lets go of what it keeps open */
  close(): void;
  /** subscribed again while held (a shared store's: its row may have gone through another replica) */
  again?(): Promise<void>;
}

/**
 * Makes the watcher of `uri` for `origin`, having read its answer once (so a URI that cannot be read is refused
 * as resources/read would refuse it); throws that ProtocolError.
 */
export type Watch = (
  uri: string,
  origin: AgentOrigin,
  signal: AbortSignal,
  /** the 2025-11-25 HTTP session the connection is, if it is one */
  session?: string,
) => Promise<{ watcher: Watcher; first: string }>;

/** A watcher a timer looks at: here, or a shared store's leased one (leases.ts). */
export interface Looked {
  watcher: Watcher;
  lookedAt: number;
  busy: boolean;
  /** the last read again was refused or failed: read again at the polled pace, moved or not */
  missed: boolean;
}

interface Held extends Looked {
  digest: string;
}

/** How often a read again that was refused (a lock) is tried again, moved or not. */
const MISSED_MS = 5000;

/**
 * Whether `w` is to be read again at `at`: its time came and it moved (a look that throws counts as moved), or its
 * last read was refused. Marks it looked at when its time came. Refuses nothing.
 */
export function due(w: Looked, at: number): boolean {
  if (w.busy || at - w.lookedAt < (w.missed ? MISSED_MS : w.watcher.every)) return false;
  w.lookedAt = at;
  let moved: boolean;
  try {
    moved = w.watcher.moved();
  } catch {
    moved = true;
  }
  return moved || w.missed;
}

/** Reads `w` again: its answer, or undefined when that was refused or failed (then `missed`). Refuses nothing. */
export async function readAgain(w: Looked, signal: AbortSignal): Promise<string | undefined> {
  w.busy = true;
  let text: string | undefined;
  try {
    text = await w.watcher.read(signal);
  } catch {
    text = undefined; // refused or failed: nothing is told, and the next change tries again
  } finally {
    w.busy = false;
  }
  w.missed = text === undefined;
  return text;
}

/** The digest an answer is compared by. */
export function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

export class Subscriptions {
  private readonly held = new Map<string, Held>();
  /** URIs being subscribed (their first read under way): counted toward the limit */
  private readonly pending = new Set<string>();
  private readonly senders = new Set<(uri: string) => void>();
  private readonly stop = new AbortController();
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  /** the way the latest server made for this connection watches a URI (each the same: made from one context) */
  private watch: Watch | undefined;

  constructor(
    private readonly now: () => number = Date.now,
    /** the 2025-11-25 HTTP session these are of, if any: a shared store keeps them by it */
    readonly session?: string,
  ) {}

  /** refuses a URI this server does not offer, reading nothing (see subscriptionReads.ts checkUri) */
  private check: ((uri: string) => void) | undefined;

  /** Watches what is subscribed from now on with `watch`; `check` refuses a URI at once, reading nothing. */
  use(watch: Watch, check?: (uri: string) => void): void {
    this.watch = watch;
    this.check = check;
  }

  /** How many URIs are subscribed now. */
  get size(): number {
    return this.held.size;
  }

  /** Whether `uri` is subscribed. */
  has(uri: string): boolean {
    return this.held.has(uri);
  }

  /** Calls `send` with each URI whose answer changed; returns the function that stops it. */
  onUpdate(send: (uri: string) => void): () => void {
    this.senders.add(send);
    return () => this.senders.delete(send);
  }

  /**
   * Refuses (a ProtocolError with rta's code) when subscribing to `uris` would hold more than 64, a URI already
   * held not counted twice, and any URI this server does not offer. Asked before anything is subscribed, so a
   * listen is refused whole.
   */
  checkRoom(uris: readonly string[]): void {
    for (const uri of uris) this.check?.(uri);
    const fresh = new Set(uris.filter((u) => !this.held.has(u) && !this.pending.has(u)));
    if (this.held.size + this.pending.size + fresh.size <= MAX_SUBSCRIPTIONS) return;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `a connection may hold at most ${MAX_SUBSCRIPTIONS} subscriptions, and this one holds ${this.held.size + this.pending.size}`,
      {
        code: "core.mcp.subscriptions.full",
        hint: "unsubscribe from a resource you no longer need (resources/unsubscribe, or cancel its listen), then subscribe again",
      },
    );
  }

  /**
   * Subscribes to `uri` for `origin`: its answer is read once now, through the gate. Refuses the 65th URI, and
   * whatever resources/read would refuse. Subscribing again to a URI held is no new subscription.
   */
  async subscribe(uri: string, origin: AgentOrigin): Promise<void> {
    if (this.closed) return;
    const held = this.held.get(uri);
    if (held) return await held.watcher.again?.();
    this.checkRoom([uri]);
    this.pending.add(uri);
    try {
      if (this.watch === undefined) throw new Error("no server watches this connection's subscriptions");
      const { watcher, first } = await this.watch(uri, origin, this.stop.signal, this.session);
      if (this.closed || this.held.has(uri)) {
        watcher.close();
        return;
      }
      this.held.set(uri, { watcher, digest: digestOf(first), lookedAt: this.now(), busy: false, missed: false });
    } finally {
      this.pending.delete(uri);
    }
    this.timer ??= setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref?.();
  }

  /**
   * Holds `uri` as subscribed, watched by `watcher`, reading nothing: a shared store's subscription of this session
   * made through another replica, taken back here. A URI held already (or past the limit) is let be, and its
   * watcher closed.
   */
  adopt(uri: string, watcher: Watcher): void {
    if (this.closed || this.held.has(uri) || this.held.size >= MAX_SUBSCRIPTIONS) {
      watcher.close();
      return;
    }
    // its watcher is run by the replica holding its lease: nothing here looks at it
    this.held.set(uri, { watcher, digest: "", lookedAt: this.now(), busy: false, missed: false });
  }

  /**
   * Tells the client that `uri`'s answer changed, as its own watcher would: the shared store's watcher of it
   * (mcp/leases.ts), on whichever replica holds that, said so. A URI not subscribed here is let be.
   */
  tell(uri: string): void {
    if (this.closed || !this.held.has(uri)) return;
    for (const send of this.senders) send(uri);
  }

  /** Stops watching `uri` (the client unsubscribed); one not held is let be. */
  unsubscribe(uri: string): void {
    this.release(uri);
  }

  /** Lets go of `uri`'s watcher here. */
  private release(uri: string): void {
    const held = this.held.get(uri);
    if (!held) return;
    this.held.delete(uri);
    held.watcher.close();
    if (this.held.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The connection ended: every watcher is let go, and nothing more is sent. */
  close(): void {
    this.closed = true;
    this.stop.abort();
    // a shared store's subscriptions outlive the connection here: its session may go on through another replica
    for (const uri of [...this.held.keys()]) this.release(uri);
    this.senders.clear();
  }

  /**
   * Looks at each watcher whose time came; reads again those that moved, and tells of those whose answer changed.
   * Resolves once those reads are over (the timer does not wait for it).
   */
  tick(): Promise<void> {
    const at = this.now();
    const reads: Promise<void>[] = [];
    for (const [uri, held] of this.held) if (due(held, at)) reads.push(this.reread(uri, held));
    return Promise.all(reads).then(() => {});
  }

  private async reread(uri: string, held: Held): Promise<void> {
    const text = await readAgain(held, this.stop.signal);
    if (text === undefined || this.held.get(uri) !== held) return;
    const digest = digestOf(text);
    if (digest === held.digest) return;
    held.digest = digest;
    for (const send of this.senders) send(uri);
  }
}
