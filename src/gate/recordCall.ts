/**
 * Stage 14, record: one line per agent call, refusals and probes included.
 * A person's calls at the terminal are theirs and are not recorded.
 */
import type { Call } from "../core/call.ts";
import type { Deps } from "../core/deps.ts";

export interface CallTrace {
  call: Call;
  started: number;
  outcome: string;
  probe: boolean;
  /** the id of the grant the call spent a use of */
  grant?: string;
}

export function recordCall(trace: CallTrace, deps: Deps): void {
  const { call } = trace;
  if (call.origin.kind !== "agent") return;
  const args =
    call.args !== null && typeof call.args === "object" && !Array.isArray(call.args) ? Object.keys(call.args) : [];
  deps.record.append({
    time: new Date(trace.started).toISOString(),
    session: call.origin.session,
    agent: call.origin.name,
    client: call.origin.client,
    transport: call.origin.transport,
    capability: call.capability,
    outcome: trace.outcome,
    ...(trace.probe ? { probe: true as const } : {}),
    ...(trace.grant ? { grant: trace.grant } : {}),
    duration_ms: Math.max(0, deps.clock.now() - trace.started),
    args,
  });
}
