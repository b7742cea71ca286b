/**
 * Stage 13, redact: what an agent is told names rta's data dir, config dir
 * and identity file only as <data dir>, <config dir> and <identity file>, and
 * masks URL userinfo, token parameters and credential headers, in messages,
 * hints and results alike. The strings the agent sent are its own and are
 * left as they were. The record keeps the error as it was written (stage 14).
 */
import type { Call, Outcome } from "../core/call.ts";
import { RtaError } from "../core/errors.ts";
import type { Redactor } from "../core/redact.ts";

/** Stage 13: rta's places and secrets out of an agent's outcome, the strings the agent sent kept as sent. */
export function redactOutcome(outcome: Outcome, call: Call, redactor: Redactor): Outcome {
  // asked only when a text names a place: most outcomes name none
  let sent: string[] | undefined;
  const kept = () => {
    sent ??= sentStrings(call.args);
    return sent;
  };
  if (outcome.ok) return { ok: true, value: redactor.value(outcome.value, kept) };
  const e = outcome.error;
  const hint = e.hint === undefined ? undefined : redactor.text(e.hint, kept);
  return { ok: false, error: new RtaError(e.code, redactor.text(e.message, kept), hint) };
}

/**
 * Every string the agent sent, at any depth of its arguments, the names of
 * its arguments included: a refusal echoes an unknown one, and one that
 * names rta's data dir came back renamed, so a right guess was confirmed.
 */
function sentStrings(args: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x);
      }
  };
  walk(args);
  return out;
}
