/**
 * Stage 14, record: one line per agent call, refusals and probes included.
 * A person's calls at the terminal are theirs and are not recorded. An error
 * is kept as it was written, since the record is the person's, with its
 * secrets masked.
 */
import type { Call } from "../core/call.ts";
import type { Deps } from "../core/deps.ts";
import type { RtaError } from "../core/errors.ts";
import { maskSecrets } from "../core/redact.ts";

export interface CallTrace {
  call: Call;
  started: number;
  outcome: string;
  probe: boolean;
  /** the id of the grant the call spent a use of */
  grant?: string;
  /** the refusal or failure, as it was written for the person */
  error?: RtaError;
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
    ...(trace.error ? { error: recordedError(trace.error) } : {}),
  });
}

function recordedError(e: RtaError): { message: string; hint?: string } {
  return e.hint === undefined
    ? { message: maskSecrets(e.message) }
    : { message: maskSecrets(e.message), hint: maskSecrets(e.hint) };
}
