/**
 * Plugin processes. One long-lived child per plugin and lane (an agent's
 * calls; a person's) in a server, started on first use and started again when it died (or its binary was described
 * anew), takes the calls with no path input, one at a time: the next `run` is
 * sent only once the one before is answered, so an answer refused from its
 * header is the one call's, and a hung call killed on cancel takes no other
 * with it. A call with path inputs runs in a fresh child started for it with
 * the gate's descriptors as fds 3, 4, ..., since descriptors are handed over
 * only when a process starts. Every child is killed when the server stops.
 */
import type { PluginRef } from "../core/capability.ts";
import { pluginError, type RtaError } from "../core/errors.ts";
import { agentLimits, tooLarge } from "../gate/bound.ts";
import { BinaryChanged, Child, type Reply } from "./child.ts";
import { FrameError } from "./frame.ts";
import { checkDescribed, DESCRIBE_MAX_BYTES, type Described, PLUGIN_PROTOCOL, underPrefix } from "./protocol.ts";
import { changedSinceDescribed, failed, invalid, tooManyValues } from "./refusals.ts";
import { cancelled, waitOr } from "./waits.ts";

/** How long a cancelled call's plugin has to answer before it is killed. */
export const CANCEL_GRACE_MS = 2000;
/** How long a plugin has to answer `describe`. */
export const DESCRIBE_WAIT_MS = 10_000;
/**
 * How long a plugin has to answer a `run`, as a system tool has to end (gate/spawn.ts): then it is sent `cancel` and
 * killed the grace later. A plugin that never answers would hold its long-lived child, and every call behind it.
 */
export const RUN_WAIT_MS = 60_000;
/**
 * Long-lived children a server keeps with no call, beside those with one: a
 * lane is an agent's name, and a client a server names by what it reports
 * can report a new name on every call (the 2026-07-28 revision sends it with
 * each), so that each would start a process kept until the server stops.
 * Past this the child idle longest is stopped; its lane starts a new one.
 */
export const IDLE_CHILDREN_KEPT = 16;
/** A plugin's error message or hint, as the caller is told it, at most. */
const SAID_BYTES = 4096;

export interface HostOptions {
  /** the server's hard result bound (--max-result), else an agent's default: an answer declaring more is refused from its header */
  maxResult?: number;
  /** how long a cancelled call may take to answer before its child is killed; 2 s */
  graceMs?: number;
  /** how long a run may take before it is cancelled and fails; 60 s */
  runMs?: number;
}

/** One `run` request's params, as sent. */
export interface RunParams {
  capability: string;
  args: Record<string, unknown>;
  paths: Record<string, { fd: number }>;
  data_dir: string;
  /** bytes of answer the caller is sent at most; null when unbounded (a person) */
  budget: number | null;
}

/**
 * Spawns the plugin (checked to hash to `sha256` unless that is ""), asks
 * `describe` under the bounds (1 MiB, 1,000 capabilities, 10 s), and stops
 * it. Refuses core.plugin.invalid with the reason: it cannot be started, its
 * binary is not the one hashed, it exits, hangs, sends a malformed or oversized
 * frame, an error, or a description checkDescribed refuses.
 */
export async function describePlugin(file: string, name: string, sha256 = ""): Promise<Described> {
  let child: Child;
  try {
    child = new Child(file, sha256);
  } catch (err) {
    if (err instanceof BinaryChanged) throw invalid(name, "its binary changed as it was described");
    throw invalid(name, `it could not be started (${(err as NodeJS.ErrnoException).code ?? "not executable"})`);
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), DESCRIBE_WAIT_MS);
  abort.signal.addEventListener("abort", () => child.kill());
  try {
    const reply = await child.request("describe", { protocol: PLUGIN_PROTOCOL }, DESCRIBE_MAX_BYTES);
    if ("error" in reply) throw invalid(name, "it answered describe with an error");
    return checkDescribed(reply.result, name);
  } catch (err) {
    if (!(err instanceof FrameError)) throw err;
    if (abort.signal.aborted) throw invalid(name, `it did not answer describe within ${DESCRIBE_WAIT_MS / 1000} s`);
    if (err.kind === "toolarge") throw invalid(name, `its describe declares ${err.declared} bytes, past 1 MiB`);
    if (err.kind === "ended") throw invalid(name, "it exited before answering describe");
    throw invalid(name, err.message);
  } finally {
    clearTimeout(timer);
    child.kill();
  }
}

/** A plugin's long-lived child, and the calls waiting for it. */
interface Slot {
  child?: Child;
  /** settles when the last call queued for the child is over */
  queue: Promise<void>;
  /** the calls sent or waiting to be: a call that finds one waits, and is asked `ready` after */
  calls: number;
  /** its plugin was removed or upgraded: the child stops once its calls are done */
  retired?: boolean;
}

/** The children of every plugin a server has called (a long-lived one per plugin and lane), closed with it. */
export class PluginHosts {
  private readonly slots = new Map<string, Slot>();
  private readonly fresh = new Set<Child>();
  private readonly onExit = () => this.close();

  constructor(readonly opts: HostOptions) {
    process.once("exit", this.onExit);
  }

  /** The hard result bound a plugin's answer is held to. */
  get maxResult(): number {
    return this.opts.maxResult ?? agentLimits().hard;
  }

  /**
   * Sends one `run` and resolves the answer's value, unchecked (the caller
   * checks its shape). `fds` are handed to a fresh child as 3, 4, ...; none
   * goes to the long-lived one. Refuses core.result.toolarge from a header
   * past the bound, core.call.cancelled once `signal` aborts, a plugin error
   * under its prefix, and core.plugin.failed for anything else. `ready` is
   * asked once a call queued behind another is about to be sent, and may
   * refuse it (a lock set while it waited). Calls in different `lane`s (one
   * agent's, another's) go to long-lived children of their own, so one
   * agent's call that hangs holds up no other agent's.
   */
  async run(
    ref: PluginRef,
    params: RunParams,
    fds: readonly number[],
    signal: AbortSignal,
    ready: () => void = () => {},
    lane = "",
  ): Promise<unknown> {
    if (signal.aborted) throw cancelled();
    // the time a call has starts when it does: one queued behind a plugin that hangs ends in time too
    const late = new AbortController();
    const timer = setTimeout(() => late.abort(), this.runMs);
    try {
      return await this.runBy(ref, params, fds, signal, late.signal, ready, lane);
    } finally {
      clearTimeout(timer);
    }
  }

  private async runBy(
    ref: PluginRef,
    params: RunParams,
    fds: readonly number[],
    signal: AbortSignal,
    late: AbortSignal,
    ready: () => void,
    lane: string,
  ): Promise<unknown> {
    if (fds.length > 0) {
      const child = this.start(ref, fds);
      this.fresh.add(child);
      try {
        return await this.exchange(child, ref, params, signal, late);
      } finally {
        this.fresh.delete(child);
        child.finish(this.grace);
      }
    }
    const key = `${ref.name}\0${lane}`;
    const slot = this.slots.get(key) ?? { queue: Promise.resolve(), calls: 0 };
    // last in the map's order: the first ones with no call are those idle longest
    this.slots.delete(key);
    this.slots.set(key, slot);
    this.stopIdle();
    const before = slot.queue;
    const queued = slot.calls > 0;
    slot.calls++;
    let done = () => {};
    const mine = new Promise<void>((r) => {
      done = r;
    });
    slot.queue = before.then(() => mine);
    try {
      await waitOr(before, signal, late, () => this.overdue(ref));
      if (queued) ready();
      if (!slot.child || slot.child.dead || slot.child.digest !== ref.digest || slot.child.file !== ref.file) {
        slot.child?.kill();
        slot.child = this.start(ref, []);
        slot.retired = false;
      }
      return await this.exchange(slot.child, ref, params, signal, late);
    } finally {
      slot.calls--;
      done();
      if (slot.retired && slot.calls === 0 && this.slots.delete(key)) slot.child?.kill();
      this.stopIdle();
    }
  }

  /** Stops the children idle longest, and forgets their lanes, past IDLE_CHILDREN_KEPT with no call. */
  private stopIdle(): void {
    let idle = 0;
    for (const slot of this.slots.values()) if (slot.calls === 0) idle++;
    for (const [key, slot] of this.slots) {
      if (idle <= IDLE_CHILDREN_KEPT) break;
      if (slot.calls > 0) continue;
      slot.child?.kill();
      this.slots.delete(key);
      idle--;
    }
  }

  /** Stops plugin `name`'s children not running `keep`'s binary (all: removed), idle now, busy once done. */
  retire(name: string, keep?: Pick<PluginRef, "digest" | "file">): void {
    for (const [key, slot] of this.slots) {
      if (!key.startsWith(`${name}\0`)) continue;
      if (keep !== undefined && slot.child?.digest === keep.digest && slot.child.file === keep.file) continue;
      if (slot.calls > 0) slot.retired = true;
      else {
        slot.child?.kill();
        this.slots.delete(key);
      }
    }
  }

  /** Kills every child; calls in flight fail. Refuses nothing. */
  close(): void {
    process.off("exit", this.onExit);
    for (const slot of this.slots.values()) slot.child?.kill();
    for (const child of this.fresh) child.kill();
    this.slots.clear();
    this.fresh.clear();
  }

  private get grace(): number {
    return this.opts.graceMs ?? CANCEL_GRACE_MS;
  }

  private get runMs(): number {
    return this.opts.runMs ?? RUN_WAIT_MS;
  }

  /** A call that was not answered in the time it has, whether it was waiting its turn or sent. */
  private overdue(ref: PluginRef, detail?: string): RtaError {
    return failed(ref.name, `it did not answer within ${this.runMs / 1000} s`, detail);
  }

  private start(ref: PluginRef, fds: readonly number[]): Child {
    try {
      return new Child(ref.file, ref.digest, fds);
    } catch (err) {
      if (err instanceof BinaryChanged) throw changedSinceDescribed(ref.name, false);
      const why = (err as NodeJS.ErrnoException).code ?? "it is not executable";
      throw failed(ref.name, `it could not be started (${why})`);
    }
  }

  /** One run on `child`, its answer or failure said as the caller is told it; a child that misbehaved is killed. */
  private async exchange(
    child: Child,
    ref: PluginRef,
    params: RunParams,
    signal: AbortSignal,
    late: AbortSignal,
  ): Promise<unknown> {
    let reply: Reply;
    try {
      reply = await child.request("run", params, this.maxResult, AbortSignal.any([signal, late]), this.grace);
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      child.kill();
      if (signal.aborted) throw cancelled();
      if (late.aborted) throw this.overdue(ref, await child.ending());
      if (err.kind === "toolarge") throw tooLarge(err.declared, this.maxResult);
      if (err.kind === "toomany") throw tooManyValues();
      const why = err.kind === "ended" ? "it exited before it answered" : err.message;
      throw failed(ref.name, why, await child.ending());
    }
    if (signal.aborted) throw cancelled();
    // what it answered once it was cancelled for being late is no answer to the call
    if (late.aborted) throw this.overdue(ref);
    if ("error" in reply) throw refusal(reply.error, ref);
    const result = reply.result as { value?: unknown; wrote?: unknown } | null;
    if (result === null || typeof result !== "object" || !("value" in result)) {
      child.kill();
      throw failed(ref.name, "its answer holds no value");
    }
    return result;
  }
}

/** A plugin's error: its own code under its prefix is passed on, anything else is its failure. */
function refusal(error: Extract<Reply, { error: unknown }>["error"], ref: PluginRef): RtaError {
  const code = error.data?.code;
  const message = typeof error.message === "string" ? error.message.slice(0, SAID_BYTES) : "";
  if (typeof code !== "string" || !underPrefix(code, ref.name) || message === "") {
    return failed(ref.name, "it answered with an error outside its prefix");
  }
  const hint = typeof error.data?.hint === "string" ? error.data.hint.slice(0, SAID_BYTES) : undefined;
  return pluginError(code, message, hint);
}
