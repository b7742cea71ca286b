/**
 * Stage 6a, rate: how often an agent may call each capability, as config's
 * `[limits]` says (core/configLimits.ts). It runs after the lock and the
 * grant, so a locked or ungranted call spends nothing; a call it refuses
 * gives its grant's use back (pipeline.ts). A token is not given back when a
 * later stage refuses the call: a limit counts calls, and a refused call is
 * one. The bucket is kept in gate.db (store/rates.ts), so every server
 * sharing a data dir spends from the same one.
 *
 * Without `[limits]` it asks nothing: not the store, not the clock. A
 * person's own calls are never limited, and neither is a call sent with
 * countsTowardLimit false (a subscription's re-run, when there are any).
 * Resource reads count: the server asks `checkResourceRate` for each one
 * (a subscription's re-read, when there are any, must not).
 */
import type { AgentOrigin, Call } from "../core/call.ts";
import type { Config } from "../core/config.ts";
import { limitFor } from "../core/configLimits.ts";
import { RtaError } from "../core/errors.ts";
import type { Deps } from "./deps.ts";
import { recordCall } from "./recordCall.ts";

/**
 * Refuses (core.rate.limited, with the seconds to wait) an agent's call to
 * `cap` past the calls a minute config allows it; else spends one and returns.
 */
export function checkRate(
  cap: { name: string; area: string },
  call: Call,
  config: Config | undefined,
  deps: Deps,
): void {
  const limits = config?.limits;
  if (limits === undefined || call.origin.kind !== "agent" || call.countsTowardLimit === false) return;
  const perMinute = limitFor(limits, cap.name, cap.area);
  if (perMinute === undefined) return;
  spend(call.origin.name, cap.name, "calls", perMinute, deps);
}

/**
 * The same for a resource read (`rta://grants`, a card), which calls_per_minute
 * limits, each resource (a template counted as one) a bucket of its own. A
 * refusal is written to the record, as a call's is, and returned to be said;
 * undefined: the read may go on.
 */
export function checkResourceRate(
  resource: string,
  origin: AgentOrigin,
  config: Config | undefined,
  deps: Deps,
): RtaError | undefined {
  const perMinute = config?.limits?.calls_per_minute;
  if (perMinute === undefined) return undefined;
  const call: Call = { capability: resource, args: {}, origin };
  return refusalOnRecord(call, deps.clock.now(), deps, () => spend(origin.name, resource, "reads", perMinute, deps));
}

/**
 * Runs `check` (a rate check) for what is not a call through the pipeline (a resource read, a completion's listing):
 * the refusal it throws is written to the record as `call`'s outcome, started at `started`, and returned; undefined
 * when it passes.
 */
export function refusalOnRecord(call: Call, started: number, deps: Deps, check: () => void): RtaError | undefined {
  try {
    check();
    return undefined;
  } catch (thrown) {
    if (!(thrown instanceof RtaError)) throw thrown;
    recordCall({ call, started, outcome: thrown.code, probe: false, error: thrown, known: true }, deps);
    return thrown;
  }
}

/** Takes one call from the bucket of (agent, key); refuses with core.rate.limited when it is empty. */
function spend(agent: string, key: string, what: "calls" | "reads", perMinute: number, deps: Deps): void {
  const taken = deps.gate().takeToken(agent, key, perMinute, deps.clock.now());
  if (taken.taken) return;
  const seconds = Math.max(1, Math.ceil(taken.waitMs / 1000));
  const error = new RtaError(
    "core.rate.limited",
    `${key} is limited to ${perMinute === 1 ? `one ${what.slice(0, -1)}` : `${perMinute} ${what}`} a minute for agent ${agent}: the next can be sent in ${seconds} s`,
    `wait retry_after_seconds (${seconds}) before sending it again; the person running rta sets the limit`,
  );
  error.retryAfter = seconds;
  throw error;
}
