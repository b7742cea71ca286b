/**
 * A plugin call waiting for its turn at a long-lived child, under the call's
 * signal (the client cancelled it) and its time (RUN_WAIT_MS, host.ts).
 */
import { RtaError } from "../core/errors.ts";

/** The refusal of a call its client cancelled. */
export function cancelled(): RtaError {
  return new RtaError("core.call.cancelled", "the call was cancelled", "call again to start over");
}

/**
 * Resolves when `p` settles; refuses core.call.cancelled first once `signal`
 * aborts, and what `overdue` makes once `late` does.
 */
export function waitOr(
  p: Promise<void>,
  signal: AbortSignal,
  late: AbortSignal,
  overdue: () => RtaError,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    const onLate = () => reject(overdue());
    signal.addEventListener("abort", onAbort, { once: true });
    late.addEventListener("abort", onLate, { once: true });
    p.then(() => {
      signal.removeEventListener("abort", onAbort);
      late.removeEventListener("abort", onLate);
      if (signal.aborted) reject(cancelled());
      else if (late.aborted) reject(overdue());
      else resolve();
    });
  });
}
