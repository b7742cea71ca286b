/**
 * The tool calls a server is running, so that a server told to stop can let
 * them finish, cancel what is left after a grace period, and write its end
 * line only once every call it ran has its own line in the record. An end
 * line written before a call's would read as tampering to `--verify`.
 *
 * A call's record line is written before its answer is returned (the
 * pipeline records in its own finally), so a call that is no longer tracked
 * here has been recorded.
 */
import type { Server } from "@modelcontextprotocol/server";
import { lap } from "../../core/profile.ts";

/**
 * How long a stopping server lets calls under way finish before it cancels
 * them: a grep or an HTTP fetch done in a few seconds is worth its answer,
 * and ten seconds leaves most of a container's 30-second stop window for the
 * cancelled calls to be recorded.
 */
export const SHUTDOWN_GRACE_MS = 10_000;
/**
 * How long a cancelled call has to stop and be recorded. Capabilities stop at
 * the next check of their abort signal, well inside this; one that does not
 * is left unrecorded rather than written after the session's end line.
 */
export const CANCEL_GRACE_MS = 2_000;

type Handler = (request: unknown, ctx: RequestContext) => Promise<unknown>;
interface RequestContext {
  mcpReq: { signal: AbortSignal };
}

/** The SDK keeps a server's request handlers in this map; the field is not public, and the SDK version is pinned. */
interface HandlerTable {
  _requestHandlers?: Map<string, Handler>;
}

export class CallsInFlight {
  /** what cancels each call under way */
  private readonly running = new Set<AbortController>();
  private waiters: (() => void)[] = [];
  /** cancel() was called: a call that starts after it starts cancelled */
  private cancelled = false;

  get size(): number {
    return this.running.size;
  }

  /**
   * Wraps a server's `tools/call` handler so that each call is counted while
   * it runs and hears cancel() through its abort signal, beside the client's
   * own cancellation. Returns the same server. Throws if the SDK no longer
   * keeps its handlers where this looks, so a change of SDK fails loudly in
   * the tests.
   *
   * Per call it costs one AbortController, told of the client's cancellation
   * through the request signal's onabort. Measured over stdio against the
   * bare SDK, AbortSignal.any of the two signals cost about 4 µs of CPU a
   * call and a listener added about 7; this costs none that shows.
   */
  track(server: Server): Server {
    const table = (server as unknown as HandlerTable)._requestHandlers;
    const inner = table?.get("tools/call");
    if (!table || !inner) throw new Error("the MCP server has no tools/call handler to track");
    // Set past any wrapper the table's own set adds (boundErrors'): `inner` already has it.
    Map.prototype.set.call(table, "tools/call", (request: unknown, ctx: RequestContext) => {
      lap("SDK dispatch");
      const client = ctx.mcpReq.signal;
      const stop = new AbortController();
      if (this.cancelled) stop.abort();
      else if (client.aborted) stop.abort(client.reason);
      else {
        const forward = () => stop.abort(client.reason);
        // The request's own signal, made for this call: its onabort is free, and costs less than a listener added.
        if (client.onabort === null) client.onabort = forward;
        else client.addEventListener("abort", forward, { once: true });
      }
      // The SDK builds a call's context afresh for it, and keeps the request's own signal where it reads it.
      ctx.mcpReq.signal = stop.signal;
      return this.run(stop, () => inner(request, ctx));
    });
    return server;
  }

  /** Counts an SDK handler's call while its promise is pending (entered and left). */
  private run<T>(stop: AbortController, start: () => Promise<T>): Promise<T> {
    this.entered(stop);
    let call: Promise<T>;
    try {
      call = start();
    } catch (err) {
      this.left(stop);
      throw err;
    }
    const done = () => this.left(stop);
    call.then(done, done);
    return call;
  }

  /**
   * Counts a call from now until left(stop) is called, once it has ended: one
   * the SDK never saw (the stdio direct path's, which awaits its own). `stop`
   * hears cancel(), and starts aborted once it was called.
   */
  entered(stop: AbortController): void {
    if (this.cancelled && !stop.signal.aborted) stop.abort();
    this.running.add(stop);
  }

  /** The call `stop` cancels has ended: a stopping server waiting for none under way is told so. Refuses nothing. */
  left(stop: AbortController): void {
    this.running.delete(stop);
    if (this.running.size === 0 && this.waiters.length > 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves true once no call is under way, or false when `ms` pass first. */
  async settled(ms: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<true>((resolve) => this.waiters.push(() => resolve(true)));
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const result = await Promise.race([idle, late]);
    clearTimeout(timer);
    return result;
  }

  /**
   * Cancels every call under way through its abort signal: the call stops,
   * is recorded as cancelled, and its client is answered so.
   */
  cancel(): void {
    this.cancelled = true;
    for (const stop of this.running) stop.abort();
  }
}

/**
 * The order a stopping server keeps: calls under way finish (up to the
 * grace, or until `hurry` resolves: a second signal), what is left is
 * cancelled and given time to be recorded. Resolves with the number of calls
 * that did not stop, which are then left unrecorded.
 */
export async function finishCalls(
  calls: CallsInFlight,
  hurry: Promise<unknown> = new Promise(() => {}),
  graceMs = SHUTDOWN_GRACE_MS,
  cancelGraceMs = CANCEL_GRACE_MS,
): Promise<number> {
  if (await Promise.race([calls.settled(graceMs), hurry.then(() => false)])) return 0;
  calls.cancel();
  await calls.settled(cancelGraceMs);
  return calls.size;
}
