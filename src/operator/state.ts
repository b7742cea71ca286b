/**
 * What one server is doing, as the operator channel tells it and acts on it:
 * its sessions, its calls under way (each with what cancels it), and the
 * consents waiting for a person. The front tells it of each session and
 * call; a person's request (wire.ts) answers a consent, ends a session or
 * locks an agent: that agent's calls under way are cancelled at once
 * (recorded as core.lock.locked) and its HTTP sessions ended.
 */
import { randomBytes } from "node:crypto";
import type { AgentOrigin, Outcome } from "../core/call.ts";
import type { Args } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";
import { type ConsentAnswer, type ConsentPrompt, shownArgs } from "../gate/consent.ts";
import type { Deps } from "../gate/deps.ts";
import { listLocks, lock } from "../gate/operator/locks.ts";
import { cutArgs, namesOnly, settleWith, type Waiting } from "./consents.ts";
import type {
  CallStarted,
  ChannelEvent,
  ChannelReply,
  ChannelRequest,
  ConsentPending,
  ServerHello,
  SessionEnder,
} from "./wire.ts";

/** A call under way: what it is (its event made only when someone is told), and what cancels it. */
interface Running {
  call: string;
  agent: string;
  tool: string;
  args: Record<string, unknown>;
  stop: AbortController;
  started: number;
  grant?: string;
  /** told once the call has ended and been said: set only while someone waits for that (stopAgent) */
  ended?: () => void;
  /** its call_started event, once made */
  event?: CallStarted;
}

/** Resolves once the call under way `r` has ended and been said; made only when someone waits for it. */
function endOf(r: Running): Promise<void> {
  return new Promise<void>((resolve) => {
    const before = r.ended;
    r.ended = () => {
      before?.();
      resolve();
    };
  });
}

/** How long a locked agent's cancelled calls have to stop before its sessions end regardless. */
const CANCELLED_ANSWER_MS = 2_000;
/** How long the cancelled calls' answers have to leave before their sessions are closed. */
const ANSWER_OUT_MS = 50;

type Stampless<E> = E extends unknown ? Omit<E, "server" | "time"> : never;

/** One server's live state, told to the channel. */
export class ServerState {
  /** set by the channel: where events go, and whether anyone is watching */
  broadcast: (event: ChannelEvent) => void = () => {};
  watched: () => boolean = () => false;
  /** set by the front */
  sessionEnder: SessionEnder | undefined;
  private readonly sessions = new Map<string, string>();
  private readonly calls = new Set<Running>();
  private readonly pending = new Map<string, Waiting>();
  private seq = 0;

  constructor(
    readonly info: {
      server: string;
      pid: number;
      transport: "stdio" | "http" | "cli";
      agent?: string;
      started: string;
    },
    private readonly deps: Deps,
    private readonly catalogue: Catalogue,
  ) {}

  /** An event with this server's id and the time. Refuses nothing. */
  stamp<E extends ChannelEvent>(event: Stampless<E>): E {
    return { ...event, server: this.info.server, time: new Date(this.deps.clock.now()).toISOString() } as E;
  }

  /** What a new connection is told first: the server, its sessions, calls and pending consents. Refuses nothing. */
  hello(): ServerHello {
    return {
      event: "server",
      ...this.info,
      sessions: [...this.sessions].map(([session, agent]) => ({ session, agent })),
      pending: [...this.pending.values()].map((w) => w.event),
      calls: [...this.calls].map((r) => this.startedEvent(r)),
    };
  }

  /** A session opened (or its agent became known). Refuses nothing. */
  sessionStarted(session: string, agent: string): void {
    if (this.sessions.get(session) === agent) return;
    this.sessions.set(session, agent);
    this.broadcast(this.stamp({ event: "session_started", session, agent }));
  }

  /** A session ended. Refuses nothing. */
  sessionEnded(session: string): void {
    const agent = this.sessions.get(session);
    if (agent === undefined) return;
    this.sessions.delete(session);
    this.broadcast(this.stamp({ event: "session_ended", session, agent }));
  }

  /**
   * Runs one agent call watched: said as it starts and ends, cancelled when a
   * person locks its agent (through the signal `run` is handed). A caller that
   * made `signal` for this call alone may hand its controller (`own`): it is
   * then the one a person's lock aborts, and no second one is made. Refuses nothing.
   */
  async watch(
    origin: AgentOrigin,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    run: (signal: AbortSignal, onSpent: (grant: string) => void) => Promise<Outcome>,
    own?: AbortController,
  ): Promise<Outcome> {
    const id = `${this.info.server}-${++this.seq}`;
    const stop = own?.signal === signal ? own : new AbortController();
    const running: Running = { call: id, agent: origin.name, tool, args, stop, started: this.deps.clock.now() };
    this.calls.add(running);
    if (this.watched()) this.broadcast(this.startedEvent(running));
    try {
      // one signal for the call, told of the caller's, whose onabort is free: cheaper than AbortSignal.any
      if (stop !== own) {
        const forward = () => stop.abort(signal.reason);
        if (signal.aborted) forward();
        else if (signal.onabort === null) signal.onabort = forward;
        else signal.addEventListener("abort", forward, { once: true });
      }
      const outcome = await run(stop.signal, (grant) => {
        running.grant = grant;
      });
      // refused by a lock this server's lock check saw (set where no one told the servers): the rest stop too
      if (!outcome.ok && outcome.error.code === "core.lock.locked" && !stop.signal.aborted)
        void this.stopAgent(origin.name);
      if (!this.watched()) return outcome;
      const ended = this.stamp({
        event: "call_ended",
        call: id,
        agent: origin.name,
        tool,
        outcome: outcome.ok ? "ok" : outcome.error.code,
        duration_ms: this.deps.clock.now() - running.started,
        ...(running.grant ? { grant: running.grant } : {}),
      });
      this.broadcast(ended);
      return outcome;
    } finally {
      this.calls.delete(running);
      running.ended?.();
    }
  }

  /** A call's call_started event, made once: its arguments as a person is shown them. Refuses nothing. */
  private startedEvent(r: Running): CallStarted {
    if (r.event) return r.event;
    const cap = this.catalogue.byTool(r.tool);
    const args = cap ? cutArgs(shownArgs(cap, r.args as Args, this.deps)) : namesOnly(r.args);
    const time = new Date(r.started).toISOString();
    const { call, agent, tool } = r;
    r.event = { event: "call_started", server: this.info.server, call, agent, tool, args, time };
    return r.event;
  }

  /**
   * Asks the people watching: resolves with their answer, "timeout" past the
   * prompt's time, "decline" when the call is cancelled. Refuses nothing.
   */
  ask(prompt: ConsentPrompt, signal: AbortSignal): Promise<ConsentAnswer> {
    const id = randomBytes(4).toString("hex");
    const now = this.deps.clock.now();
    const event = this.stamp<ConsentPending>({
      event: "consent_pending",
      id,
      kind: prompt.kind,
      agent: prompt.agent,
      tool: prompt.tool,
      capability: prompt.capability,
      args: cutArgs(prompt.args),
      message: prompt.message,
      ...(prompt.choices ? { choices: prompt.choices } : {}),
      expires: new Date(now + prompt.timeoutMs).toISOString(),
    });
    return new Promise<ConsentAnswer>((resolve) => {
      const timer = setTimeout(() => settle("timeout", "time"), prompt.timeoutMs);
      const onAbort = () => settle("decline", "cancelled");
      const settle = (answer: ConsentAnswer, by: string) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        const said = typeof answer === "object" ? answer.chosen : answer;
        this.broadcast(this.stamp({ event: "consent_answered", id, answer: said, by }));
        resolve(answer);
      };
      this.pending.set(id, { event, settle: (a) => settle(a, "operator") });
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.broadcast(event);
    });
  }

  /** Answers one request of a person's. Refuses nothing: a refusal is the reply's error. */
  async handle(req: ChannelRequest): Promise<ChannelReply> {
    const base = { reply: req.op, server: this.info.server, ...(req.ref !== undefined ? { ref: req.ref } : {}) };
    try {
      if (req.op === "approve" || req.op === "deny") {
        settleWith(this.pending.get(req.id), req);
        return { ...base, ok: true };
      }
      if (req.op === "end_session") {
        const ended = this.sessionEnder?.one(req.session) ?? false;
        if (!ended) throw new RtaError("core.operator.unknown", `no session ${req.session} is open here`);
        return { ...base, ok: true, ended: 1 };
      }
      if (req.op === "changed") {
        this.broadcast(
          this.stamp({
            event: req.what === "lock" ? "lock_changed" : "grant_changed",
            ...(req.agent ? { agent: req.agent } : {}),
          }),
        );
        if (req.what === "lock") return { ...base, ok: true, ...(await this.stopAgents(req.agent)) };
        return { ...base, ok: true };
      }
      this.ensureLocked(req.agent);
      this.broadcast(this.stamp({ event: "lock_changed", agent: req.agent }));
      return { ...base, ok: true, ...(await this.stopAgent(req.agent)) };
    } catch (err) {
      const e = err instanceof RtaError ? err : new RtaError("core.input.invalid", (err as Error).message);
      return { ...base, ok: false, error: { code: e.code, message: e.message } };
    }
  }

  /** Sets a lock on everything for the agent, unless one already holds. Refuses as the gate's lock() does. */
  private ensureLocked(agent: string): void {
    const { locks } = listLocks(this.deps);
    if (locks.some((l) => l.state === "active" && l.agent === agent && l.target === null)) return;
    lock(this.deps, this.catalogue, { agent });
  }

  /** stopAgent for the one agent named, else for every agent with a call or session here. */
  private async stopAgents(agent: string | undefined): Promise<{ cancelled: number; ended: number }> {
    const agents = agent ? [agent] : new Set([...[...this.calls].map((r) => r.agent), ...this.sessions.values()]);
    let cancelled = 0;
    let ended = 0;
    for (const a of agents) {
      const done = await this.stopAgent(a);
      cancelled += done.cancelled;
      ended += done.ended;
    }
    return { cancelled, ended };
  }

  /**
   * Cancels the agent's calls under way (each recorded as core.lock.locked)
   * and ends its sessions, if the lock now stops them. Refuses nothing.
   */
  private async stopAgent(agent: string): Promise<{ cancelled: number; ended: number }> {
    let locked = false;
    try {
      locked = listLocks(this.deps).locks.some(
        (l) => l.state === "active" && (l.agent === agent || l.agent === null) && l.target === null,
      );
    } catch {
      locked = false;
    }
    if (!locked) return { cancelled: 0, ended: 0 };
    let cancelled = 0;
    const stopping: Promise<unknown>[] = [];
    for (const r of this.calls) {
      const id = r.call;
      if (r.agent !== agent) continue;
      cancelled++;
      stopping.push(endOf(r));
      const why = `a person locked agent ${agent}, so its call under way was cancelled`;
      this.broadcast(this.stamp({ event: "call_cancelled", call: id, agent, tool: r.tool, why }));
      r.stop.abort(new RtaError("core.lock.locked", why, "do not retry; the person who locked it lifts the lock"));
    }
    // the cancelled calls are answered (core.lock.locked) before their sessions end, within a bound
    if (stopping.length > 0) {
      await Promise.race([Promise.all(stopping), Bun.sleep(CANCELLED_ANSWER_MS)]);
      await Bun.sleep(ANSWER_OUT_MS);
    }
    const ended = this.sessionEnder?.ofAgent(agent) ?? 0;
    return { cancelled, ended };
  }
}
