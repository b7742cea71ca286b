/**
 * Sessions of 2025-11-25 clients over HTTP, by id, each bound to the agent
 * whose token opened it. Each agent has a share of sessions of its own: an
 * agent past its share loses its own least recently used idle session, never
 * another agent's. Evicting rather than refusing is what an operator
 * expects: a client that restarts and never says goodbye (DELETE) would
 * otherwise lock its own agent out until the idle sweep, and the only
 * sessions at stake are that agent's own. A session with a request in flight
 * is not idle and is never evicted; an agent whose every session is busy is
 * told 429.
 *
 * With a shared store (PostgreSQL) each session is also a row there
 * (gate/store/pgSessions.ts), so any replica may continue it: a request
 * naming a session checks its row (which marks it used), a session this
 * replica does not hold is built again from its row (sessionResume.ts), and
 * the shares count the rows, every replica's. A session ended on one replica
 * is dropped by the others at its next use. A server that stops leaves its
 * rows: the sessions go on elsewhere. Without a shared store nothing is read
 * but this map.
 *
 * Time comes from the clock it is given, so a test can move it.
 */
import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { Clock } from "../../core/deps.ts";
import type { SessionRow, SessionRows } from "../../gate/store/pgSessions.ts";
import type { Refusal } from "./limits.ts";

/**
 * Sessions one agent may keep. A client keeps one; a few restarts that never
 * closed theirs fit comfortably below this.
 */
export const SESSIONS_PER_AGENT = 32;
/** Sessions kept across all agents: every agent at its share would need sixteen tokens. */
export const MAX_SESSIONS = 512;
/** The longest session id looked up; the ones given out are UUIDs (36). */
const MAX_ID_CHARS = 128;
/** A session unused this long is closed. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;

import type { ServerState } from "../../operator/state.ts";

export interface LegacySession {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  /** the agent whose token opened it: no other token may use it */
  agent: string;
  lastUsed: number;
  /** requests being answered; a session with any is not idle */
  busy: number;
  /** GET streams open (server-to-client messages not tied to a request go there) */
  streams: number;
}

/** The share of sessions: per agent and across agents. */
export interface SessionShares {
  perAgent: number;
  total: number;
}

/** The 2025-11-25 sessions of one HTTP server, each its opener's only. */
export class LegacySessions {
  private readonly byId = new Map<string, LegacySession>();
  /** told of each session opened and closed (the operator channel) */
  watcher: { opened(id: string, agent: string): void; closed(id: string): void } | undefined;
  /** told of each session ended on every replica, by this one (a shared store: its subscriptions end with it) */
  ended: ((id: string) => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly shares: SessionShares = { perAgent: SESSIONS_PER_AGENT, total: MAX_SESSIONS },
    /** the shared store's session rows, given once it is known to be PostgreSQL: undefined keeps them in memory */
    private rows: () => SessionRows | undefined = () => undefined,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /**
   * The session with this id, if the agent is the one that opened it; marks it used. With a shared store, its row:
   * the session held here if there is one, else the row to build it from; a copy whose row is gone (ended on another
   * replica) is dropped.
   */
  use(id: string, agent: string): LegacySession | { row: SessionRow } | undefined {
    // ids are UUIDs: a longer one names no session, and is not sent to a store
    if (id.length > MAX_ID_CHARS) return undefined;
    const session = this.byId.get(id);
    const rows = this.rows();
    if (rows) {
      const row = rows.touch(id, agent, this.clock.now());
      if (!row) {
        if (session?.agent === agent) this.close(session);
        return undefined;
      }
      if (!session) return { row };
    }
    if (!session || session.agent !== agent) return undefined;
    session.lastUsed = this.clock.now();
    return session;
  }

  /** Holds a session built again from its row (counted already, by its row); the one held already, if a request built it first. */
  adopt(session: LegacySession): LegacySession {
    const held = this.byId.get(session.id);
    if (held) return held;
    this.holdRoom(session.agent);
    this.byId.set(session.id, session);
    this.watcher?.opened(session.id, session.agent);
    return session;
  }

  /**
   * Keeps the row of a session whose initialize was answered (a shared store only). The share make() counted may
   * have been passed since by sessions made at once on other replicas (each counted the rows before the others were
   * written): the agent's least recently used rows past its share go now, never this one or one busy here, so
   * whichever replica writes last leaves the agent at its share.
   */
  opened(row: SessionRow): void {
    const rows = this.rows();
    if (!rows) return;
    rows.put(row);
    const busy = [...this.byId.values()].filter((s) => s.agent === row.agent && s.busy > 0).map((s) => s.id);
    for (const id of rows.trim(row.agent, this.shares.perAgent, [row.id, ...busy])) {
      const held = this.byId.get(id);
      if (held) this.close(held);
      // ended on every replica, as one evicted to make room is: its subscriptions go with it now, not at a sweep
      this.ended?.(id);
    }
  }

  /**
   * Sends a message on the GET stream of a session held here, as its server would send a notification; false when
   * this replica holds no open stream of that session (another may). Refuses nothing.
   */
  deliver(id: string, message: JSONRPCMessage): boolean {
    const session = this.byId.get(id);
    if (!session || session.streams === 0) return false;
    void session.transport.send(message).catch(() => {});
    return true;
  }

  /** The sessions whose GET stream is open here. */
  streaming(): string[] {
    return [...this.byId.values()].filter((s) => s.streams > 0).map((s) => s.id);
  }

  /**
   * Makes room for one more session of this agent and returns the id it will
   * have: closes sessions idle past SESSION_IDLE_MS, then, at the agent's
   * share, that agent's least recently used idle session. Refuses with 429
   * when all of the agent's sessions are busy and 503 when the server holds
   * all it may of other agents' live sessions.
   */
  make(agent: string, transport: (id: string) => WebStandardStreamableHTTPServerTransport): LegacySession | Refusal {
    this.sweep();
    const rows = this.rows();
    const refusal = rows ? this.roomInStore(rows, agent) : this.roomHere(agent);
    if (refusal) return refusal;
    if (rows) this.holdRoom(agent);
    const id = randomUUID();
    const session: LegacySession = {
      id,
      transport: transport(id),
      agent,
      lastUsed: this.clock.now(),
      busy: 0,
      streams: 0,
    };
    this.byId.set(id, session);
    this.watcher?.opened(id, agent);
    return session;
  }

  /** Forgets a session (its client said DELETE, or it never finished its initialize), on every replica. */
  forget(id: string): void {
    if (this.byId.delete(id)) this.watcher?.closed(id);
    this.rows()?.remove(id);
    this.ended?.(id);
  }

  /** Ends one session (a person at `rta operator` asked), on every replica; false when none has that id. */
  end(id: string): boolean {
    const session = this.byId.get(id);
    if (session) this.close(session);
    const removed = this.rows()?.remove(id) ?? false;
    if (removed) this.ended?.(id);
    return session !== undefined || removed;
  }

  /** Ends every session the agent opened (it was locked), on every replica, and says how many. */
  endAgent(agent: string): number {
    const own = [...this.byId.values()].filter((s) => s.agent === agent);
    for (const s of own) this.close(s);
    const removed = this.rows()?.removeAgent(agent) ?? [];
    for (const id of removed) this.ended?.(id);
    return new Set([...own.map((s) => s.id), ...removed]).size;
  }

  /** Closes the copy held here of a session whose row is gone (it ended on another replica), its stream with it. */
  lost(id: string): void {
    const session = this.byId.get(id);
    if (session) this.close(session);
  }

  /** Closes every session held here: the server is stopping. A shared store keeps their rows, for another replica. */
  closeAll(): void {
    for (const s of [...this.byId.values()]) this.close(s);
  }

  /** At the agent's share, its least recently used idle session here is closed; refused when none can be. */
  private roomHere(agent: string): Refusal | undefined {
    const own = [...this.byId.values()].filter((s) => s.agent === agent);
    if (own.length >= this.shares.perAgent) {
      const idle = own.filter((s) => s.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) return { status: 429, message: `this agent already has ${this.shares.perAgent} sessions, all busy` };
      this.close(idle);
    }
    if (this.byId.size >= this.shares.total)
      return { status: 503, message: "the server holds as many sessions as it may: close one or try later" };
    return undefined;
  }

  /** The same, counting the store's rows: the session evicted is the agent's least recently used not busy here. */
  private roomInStore(rows: SessionRows, agent: string): Refusal | undefined {
    let { own, total } = rows.count(agent);
    if (own >= this.shares.perAgent) {
      const busy = [...this.byId.values()].filter((s) => s.agent === agent && s.busy > 0).map((s) => s.id);
      const victim = rows.leastUsed(agent, busy);
      if (victim === undefined)
        return { status: 429, message: `this agent already has ${this.shares.perAgent} sessions, all busy` };
      rows.remove(victim);
      this.ended?.(victim);
      const held = this.byId.get(victim);
      if (held) this.close(held);
      total -= 1;
    }
    if (total >= this.shares.total)
      return { status: 503, message: "the server holds as many sessions as it may: close one or try later" };
    return undefined;
  }

  /**
   * With a shared store, what this replica holds is a copy of a row that any replica may remove (evicted to make
   * room, ended), and a copy whose row is gone is dropped only at its next use here, which an agent need never
   * make: copies would pile up past every share. So before one more is held, the agent's least recently used idle
   * copies here go while it holds its share, and anyone's while the server holds its total. Only the copy: its row,
   * if it is still there, is another replica's to use, and this one builds the session again when asked.
   */
  private holdRoom(agent: string): void {
    const oldestIdle = (of: (s: LegacySession) => boolean) =>
      [...this.byId.values()].filter((s) => of(s) && s.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    const own = (s: LegacySession) => s.agent === agent;
    for (let n = [...this.byId.values()].filter(own).length; n >= this.shares.perAgent; n--) {
      const copy = oldestIdle(own);
      if (!copy) break;
      this.close(copy);
    }
    while (this.byId.size >= this.shares.total) {
      const copy = oldestIdle(() => true);
      if (!copy) break;
      this.close(copy);
    }
  }

  /** Closes the sessions idle past SESSION_IDLE_MS: here, and with a shared store, the rows no replica has used since. */
  private sweep(): void {
    const now = this.clock.now();
    const rows = this.rows();
    // a copy idle here may be in use on another replica: only the copy is dropped, and the row when it is idle too
    for (const s of [...this.byId.values()]) if (s.busy === 0 && now - s.lastUsed > SESSION_IDLE_MS) this.close(s);
    for (const id of rows?.removeIdle(now - SESSION_IDLE_MS) ?? []) {
      this.ended?.(id);
      const held = this.byId.get(id);
      if (held && held.busy === 0) this.close(held);
    }
  }

  /** Closes a session held here; its row, if a shared store keeps one, is the caller's to remove. */
  private close(session: LegacySession): void {
    if (this.byId.delete(session.id)) this.watcher?.closed(session.id);
    void session.transport.close().catch(() => {});
  }
}

/** Tells the operator channel of each session, and lets it end them. Refuses nothing. */
export function watchSessions(sessions: LegacySessions, state: ServerState): void {
  sessions.watcher = {
    opened: (id, agent) => state.sessionStarted(id, agent),
    closed: (id) => state.sessionEnded(id),
  };
  state.sessionEnder = { one: (id) => sessions.end(id), ofAgent: (agent) => sessions.endAgent(agent) };
}
