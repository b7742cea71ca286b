/**
 * Cooperative pacing for a capability that works through a big input (many
 * files, huge files, long lines). The server is one event loop: a call that
 * never awaits holds every other call, every other agent and /healthz, and
 * cannot even see that it was cancelled. A pacer lets the work run in slices
 * and stops it at the next slice once the call's signal is aborted.
 */
import { RtaError } from "./errors.ts";

/** How long a slice of work may hold the event loop before it gives way. */
export const SLICE_MS = 10;

export class Pacer {
  private sliceStart = performance.now();

  /**
   * @param signal the call's abort signal
   * @param doing what the call is doing, for the message when it is cancelled ("searching \"src\"")
   */
  constructor(
    private readonly signal: AbortSignal,
    private readonly doing: string,
  ) {}

  /**
   * True when the slice is used up or the call was cancelled: the caller
   * should `await pause()`. Cheap enough to ask per line, and synchronous, so
   * a loop pays for an await only when it gives way:
   * `if (pacer.due()) await pacer.pause();`
   */
  due(): boolean {
    return this.signal.aborted || performance.now() - this.sliceStart >= SLICE_MS;
  }

  /**
   * Gives the event loop a turn, then goes on. Throws `core.call.cancelled`
   * when the call was cancelled, before or during the turn.
   */
  async pause(): Promise<void> {
    this.check();
    await new Promise((resolve) => setImmediate(resolve));
    this.check();
    this.sliceStart = performance.now();
  }

  private check(): void {
    if (this.signal.aborted)
      throw new RtaError("core.call.cancelled", `${this.doing} was cancelled`, "call again to start over");
  }
}
