/**
 * The one pipeline. Every call, from any front (CLI, MCP over stdio or HTTP, a
 * plugin), is one `Call` value and passes this function; no front repeats a
 * check. The stages run in the order of DESIGN section 1, which is part of the
 * contract: a call refused by an earlier stage spends nothing a later one
 * guards. Stages that exist today:
 *
 *   1  resolve      unknown tool (a never-a-tool name gets the same answer)
 *   2  shape        core.mcp.badargs (agents) / core.input.invalid (a person)
 *   3  declaration  core.input.option, core.input.range, core.input.missing
 *   4  lock         core.lock.locked (agents; free reads too)
 *   6  grant        core.grant.required, core.grant.ceiling (agents; what is above a free read)
 *   10 paths        core.path.* (every path argument opened under a root)
 *   11 run          the capability's own codes
 *   12 bound        core.result.toolarge, core.mcp.result.cut, core.mcp.result.toolarge (agents)
 *   14 record       agent calls, in a finally, so refusals are recorded too
 */
import type { Call } from "../core/call.ts";
import type { Catalogue } from "../core/catalogue.ts";
import type { Deps } from "../core/deps.ts";
import { asRtaError, type RtaError } from "../core/errors.ts";
import type { ResultValue } from "../core/result.ts";
import { agentLimits, bound, type Limits, UNBOUNDED } from "./bound.ts";
import { checkDeclaration } from "./declaration.ts";
import { execute } from "./execute.ts";
import { spendGrant } from "./grants.ts";
import { checkLock } from "./locks.ts";
import { accessOf, personAccess, withRoots } from "./pathGate.ts";
import { closePaths, openPaths } from "./paths.ts";
import { type CallTrace, recordCall } from "./recordCall.ts";
import { resolve } from "./resolve.ts";
import { checkShape } from "./shape.ts";

export type Outcome = { ok: true; value: ResultValue } | { ok: false; error: RtaError };

export interface PipelineOptions {
  signal?: AbortSignal;
  /** the agent's result bounds (the server's --max-result); a person is never bounded */
  limits?: Limits;
  /** called with what was thrown when it was not an RtaError, before it is made bare */
  onUnexpected?: (thrown: unknown) => void;
}

export async function runCall(
  call: Call,
  catalogue: Catalogue,
  deps: Deps,
  options: PipelineOptions = {},
): Promise<Outcome> {
  const trace: CallTrace = { call, started: deps.clock.now(), outcome: "ok", probe: false };
  try {
    const cap = resolve(call, catalogue);
    const shaped = checkShape(cap, call, catalogue);
    const args = checkDeclaration(cap, call, shaped);
    if (call.origin.kind === "agent") {
      const agentCall = { ...call, origin: call.origin };
      const now = deps.clock.now();
      checkLock(cap, call.origin, deps.gate(), now);
      trace.grant = spendGrant(cap, agentCall, args, deps.gate(), deps.policy, now)?.id;
    }
    const gate = call.origin.kind === "agent" ? accessOf(withRoots(deps.roots, cap.defaultRoots)) : personAccess();
    const paths = openPaths(cap, args, gate);
    try {
      const limits = call.origin.kind === "agent" ? (options.limits ?? agentLimits()) : UNBOUNDED;
      const signal = options.signal ?? new AbortController().signal;
      const ran = await execute(cap, args, call, deps, signal, limits, paths, gate);
      const value = bound(ran, limits);
      return { ok: true, value };
    } finally {
      closePaths(paths);
    }
  } catch (thrown) {
    const error = asRtaError(thrown);
    if (error !== thrown) options.onUnexpected?.(thrown);
    trace.outcome = error.code;
    trace.probe = error.code === "core.tool.unknown";
    return { ok: false, error };
  } finally {
    recordCall(trace, deps);
  }
}
