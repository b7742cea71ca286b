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
 * Time comes from the clock it is given, so a test can move it.
 */
import { randomUUID } from "node:crypto";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { Clock } from "../../core/deps.ts";
import type { Refusal } from "./limits.ts";

/**
 * Sessions one agent may keep. A client keeps one; a few restarts that never
 * closed theirs fit comfortably below this.
 */
export const SESSIONS_PER_AGENT = 32;
/** Sessions kept across all agents: every agent at its share would need sixteen tokens. */
export const MAX_SESSIONS = 512;
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

  constructor(
    private readonly clock: Clock,
    private readonly shares: SessionShares = { perAgent: SESSIONS_PER_AGENT, total: MAX_SESSIONS },
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The session with this id, if the agent is the one that opened it; marks it used. */
  use(id: string, agent: string): LegacySession | undefined {
    const session = this.byId.get(id);
    if (!session || session.agent !== agent) return undefined;
    session.lastUsed = this.clock.now();
    return session;
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
    const own = [...this.byId.values()].filter((s) => s.agent === agent);
    if (own.length >= this.shares.perAgent) {
      const idle = own.filter((s) => s.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) return { status: 429, message: `this agent already has ${this.shares.perAgent} sessions, all busy` };
      this.close(idle);
    }
    if (this.byId.size >= this.shares.total)
      return { status: 503, message: "the server holds as many sessions as it may: close one or try later" };
    const id = randomUUID();
    const session: LegacySession = { id, transport: transport(id), agent, lastUsed: this.clock.now(), busy: 0 };
    this.byId.set(id, session);
    this.watcher?.opened(id, agent);
    return session;
  }

  /** Forgets a session (its client said DELETE, or it never finished its initialize). */
  forget(id: string): void {
    if (this.byId.delete(id)) this.watcher?.closed(id);
  }

  /** Ends one session (a person at `rta operator` asked); false when none has that id. */
  end(id: string): boolean {
    const session = this.byId.get(id);
    if (session) this.close(session);
    return session !== undefined;
  }

  /** Ends every session the agent opened (it was locked) and says how many. */
  endAgent(agent: string): number {
    const own = [...this.byId.values()].filter((s) => s.agent === agent);
    for (const s of own) this.close(s);
    return own.length;
  }

  /** Closes every session: the server is stopping. */
  closeAll(): void {
    for (const s of [...this.byId.values()]) this.close(s);
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const s of [...this.byId.values()]) if (s.busy === 0 && now - s.lastUsed > SESSION_IDLE_MS) this.close(s);
  }

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
