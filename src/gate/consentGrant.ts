/**
 * Asking for a grant instead of refusing (`ask_for_grants = true` in the
 * team policy). A call refused at stage 6 for want of a grant may put the
 * question to the person behind the client: "Allow claude to use fs.write
 * on notes/ for: once / 30 min / no". An answer issues the grant the person
 * chose, narrowed to the call's record and held to the team ceiling, with
 * `issued_by` saying it came by consent through that client; the call then
 * spends it and runs. What this trusts: that the client shows the question
 * to its user, and that the user, not the model, answers (docs/grants.md).
 */
import type { AgentOrigin, Call } from "../core/call.ts";
import type { Args, Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";
import { hostOf } from "../core/hostName.ts";
import { argLines, type ConsentSeat, consentPrompt, shownValue } from "./consent.ts";
import type { Deps } from "./deps.ts";
import type { Grant } from "./gateStore.ts";
import { checkLock } from "./locks.ts";
import { type GrantPlan, issuePlanned, planGrant } from "./operator/grants.ts";
import { CONSENT_TIMEOUT_MS } from "./policy.ts";

/** What a person may choose, and the grant each is: one use within 5 minutes, or 30 minutes. */
const CHOICES: Record<string, { ttlMs: number; maxUses?: number }> = {
  once: { ttlMs: 5 * 60_000, maxUses: 1 },
  "30 min": { ttlMs: 30 * 60_000 },
};

/**
 * Spends the grant the call needs (`spend`, stage 6); when there is none and
 * the policy lets a person be asked, asks through the seat, issues what the
 * person chose and spends that. Refuses as `spend` does when nobody may be
 * asked or the ceiling caps every grant for this call, with
 * core.consent.declined when the person says no or lets the time run out,
 * and passes on what the seat throws (core.consent.asked). A grant spent at
 * once is returned as it is, with no promise to wait on.
 */
export function spendOrAsk(
  spend: () => Grant | undefined,
  cap: Capability,
  call: Call & { origin: AgentOrigin },
  args: Args,
  deps: Deps,
  catalogue: Catalogue,
  seat: ConsentSeat | undefined,
  signal: AbortSignal,
): Grant | undefined | Promise<Grant | undefined> {
  try {
    return spend();
  } catch (err) {
    if (!(err instanceof RtaError) || err.code !== "core.grant.required" || seat === undefined) throw err;
    return askForGrant(err, spend, cap, call, args, deps, catalogue, seat, signal);
  }
}

async function askForGrant(
  err: RtaError,
  spend: () => Grant | undefined,
  cap: Capability,
  call: Call & { origin: AgentOrigin },
  args: Args,
  deps: Deps,
  catalogue: Catalogue,
  seat: ConsentSeat,
  signal: AbortSignal,
): Promise<Grant | undefined> {
  const policy = deps.policy.current();
  if (policy.askForGrants !== true || call.profile !== undefined || call.connection !== undefined) throw err;
  const agent = call.origin.name;
  // any record the call names, a pid as a path: a grant asked for one process is for that one
  const record = cap.record !== undefined && args[cap.record] !== undefined ? String(args[cap.record]) : undefined;
  // and the host it reaches: a grant asked for one destination is for that one
  const host = cap.reaches !== undefined ? (hostOf(args[cap.reaches], cap.reaches === "url") ?? undefined) : undefined;
  const plan = (choice: string): GrantPlan | undefined => {
    const c = CHOICES[choice] as { ttlMs: number; maxUses?: number };
    const ttlMs = Math.min(c.ttlMs, policy.maxTtl ?? c.ttlMs);
    const maxUses = c.maxUses ?? policy.maxUses;
    try {
      return planGrant(deps, catalogue, {
        target: cap.name,
        agent,
        ttl: `${Math.max(1, Math.floor(ttlMs / 1000))}s`,
        ...(maxUses !== undefined ? { maxUses: String(maxUses) } : {}),
        ...(record !== undefined ? { record } : {}),
        ...(host !== undefined ? { host } : {}),
      });
    } catch {
      return undefined;
    }
  };
  // only what the ceiling lets be issued is offered; nothing it lets: the refusal stands, nobody is asked
  const choices = Object.keys(CHOICES).filter((c) => plan(c) !== undefined);
  if (choices.length === 0) throw err;
  const prompt = consentPrompt(cap, agent, args, deps, policy.consentTimeout ?? CONSENT_TIMEOUT_MS);
  // the record is the agent's words too: shown as an argument is, so it cannot write lines of its own into the question
  const named = [record, host].filter((x) => x !== undefined).map((x) => shownValue(deps.redactor.shown(x)));
  const on = named.length > 0 ? ` on ${named.join(" at ")}` : "";
  prompt.kind = "grant";
  prompt.choices = choices;
  prompt.message = [
    `Allow ${agent} to use ${cap.name}${on} (${cap.summary})? It holds no grant for it.`,
    ...argLines(prompt.args),
    `For: ${choices.join(" / ")} / no`,
  ].join("\n");
  const answer = await seat.ask(prompt, signal);
  if (typeof answer !== "object") {
    if (answer === "unavailable") throw err;
    throw new RtaError(
      "core.consent.declined",
      answer === "timeout"
        ? `${agent} holds no grant for ${cap.name}, and no answer came within ${Math.round(prompt.timeoutMs / 1000)} s`
        : `${agent} holds no grant for ${cap.name}, and the person asked did not grant one`,
      "do not retry on your own; ask the user whether they want it done",
    );
  }
  // a person may have taken minutes to answer: a lock put on meanwhile stops the call, and no grant is issued
  checkLock(cap, call.origin, deps.gate(), deps.clock.now());
  const chosen = plan(answer.chosen);
  if (chosen === undefined) throw err;
  const client = call.origin.client;
  issuePlanned(deps, { ...chosen, row: { ...chosen.row, issued_by: `consent via ${client}` } });
  return spend();
}
