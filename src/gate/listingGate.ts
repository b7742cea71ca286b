/**
 * What an agent's listing of a directory outside a call is held to: the path
 * completion of a read's template (mcp/completion.ts) names the entries of a
 * directory as that read's fs.list would, so it meets the same lock (stage 4)
 * and spends from the same rate bucket (stage 6a) as a call of that read. A
 * lock is met silently (a locked agent is offered nothing, as a locked
 * subscription is told nothing); a rate refusal is written to the record.
 */
import type { AgentOrigin } from "../core/call.ts";
import type { Capability } from "../core/capability.ts";
import { usable } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import type { Deps } from "./deps.ts";
import { checkLock } from "./locks.ts";
import { checkRate, refusalOnRecord } from "./rateLimit.ts";

/** Whether `origin` may be shown a listing made for `cap` now: no lock stops it and its rate bucket had a call. */
export function mayList(cap: Capability, origin: AgentOrigin, deps: Deps): boolean {
  const started = deps.clock.now();
  try {
    checkLock(cap, origin, deps.gate(), started);
  } catch (thrown) {
    if (thrown instanceof RtaError) return false;
    throw thrown;
  }
  // on the record under the tool's name, as a call of the read is
  const call = { capability: cap.tool, args: {}, origin };
  return (
    refusalOnRecord(call, started, deps, () => checkRate(cap, call, usable(deps.config.current()), deps)) === undefined
  );
}
