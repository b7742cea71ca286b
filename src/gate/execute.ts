/**
 * Stage 11, run: the capability's own work, with the call's origin, the
 * dependencies and an abort signal. What it throws that is not an RtaError
 * becomes `core.internal` in the pipeline, with a bare message.
 */
import type { Call } from "../core/call.ts";
import type { Args, Capability } from "../core/capability.ts";
import type { Deps } from "../core/deps.ts";
import type { ResultValue } from "../core/result.ts";

export function execute(
  cap: Capability,
  args: Args,
  call: Call,
  deps: Deps,
  signal: AbortSignal,
): Promise<ResultValue> {
  return cap.run(args, { origin: call.origin, deps, signal });
}
