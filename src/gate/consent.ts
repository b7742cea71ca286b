/**
 * Stage 9, live consent. A capability or area named under `confirm` in the
 * team policy or in the operator's config runs for an agent only once a
 * person accepts that very call, live, even under a grant. The front that
 * serves the agent says where the person is asked (a `ConsentSeat`): the MCP
 * client through elicitation, or (later) the operator channel. No seat, a
 * client that cannot ask, a decline or no answer in time is a refusal, never
 * a silent run.
 */
import { posix } from "node:path";
import type { AgentOrigin, Call } from "../core/call.ts";
import type { Args, Capability } from "../core/capability.ts";
import type { Config } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import { MASK } from "../core/secrets.ts";
import type { Deps } from "./deps.ts";
import { gateTargets } from "./locks.ts";
import { CONSENT_TIMEOUT_MS, type Policy } from "./policy.ts";
import { hiddenFor, maskHidden } from "./recordMask.ts";
import { inputEntries } from "./values.ts";

/** What a person is shown: the capability, what it does and the arguments it runs with, secrets masked. */
export interface ConsentPrompt {
  capability: string;
  tool: string;
  agent: string;
  description: string;
  /** the arguments the call runs with, filled, a secret input's value masked, rta's own places named as the agent sees them */
  args: Record<string, unknown>;
  /** the question itself, one paragraph a client can show as it is */
  message: string;
  /** how long the person has to answer, in ms */
  timeoutMs: number;
  /** what is asked: a call to run (consent), or a grant to issue (grant) */
  kind: "consent" | "grant";
  /** for a grant, what the person chooses between ("once", "30 min"); declining is "no" */
  choices?: string[];
}

/**
 * How a person answered: accepted, declined, let the time run out, or could
 * not be asked. A seat may also throw an RtaError (core.consent.asked, when
 * the question is put in the answer itself and the call is to come again).
 */
export type ConsentAnswer = "accept" | "decline" | "timeout" | "unavailable" | { chosen: string };

/** Where a person is asked, as the front serving the call provides it. */
export interface ConsentSeat {
  ask(prompt: ConsentPrompt, signal: AbortSignal): Promise<ConsentAnswer>;
}

const NONE: readonly string[] = [];
/** The last lists joined, by the policy and config they came from: both are kept objects while their files hold. */
let joined: { policy: Policy; config: Config | undefined; list: readonly string[] } | undefined;

/** The names a call is confirmed under: the team's list and the operator's, together. Refuses nothing. */
export function confirmList(policy: Policy, config: Config | undefined): readonly string[] {
  if (policy.confirm === undefined && config?.confirm === undefined) return NONE;
  if (joined?.policy !== policy || joined.config !== config)
    joined = { policy, config, list: [...(policy.confirm ?? []), ...(config?.confirm ?? [])] };
  return joined.list;
}

/** Whether a call to `cap` waits for a person: its name, area or plugin is on a confirm list. Refuses nothing. */
export function needsConsent(cap: Capability, list: readonly string[]): boolean {
  if (list.length === 0) return false;
  const targets = cap.plugin ? [...gateTargets(cap), cap.plugin.name] : gateTargets(cap);
  return targets.some((t) => list.includes(t));
}

/**
 * Stage 9: returns when the call needs no consent or a person accepted it;
 * refuses with core.consent.unavailable (no seat, a client that cannot ask)
 * or core.consent.declined (declined, no answer within consent_timeout), and
 * passes on what the seat throws (core.consent.asked). Returns undefined at
 * once, with no promise to wait on, for a call no list names. `config` is
 * undefined when the operator's list cannot be known: every agent call is then asked.
 */
export function checkConsent(
  cap: Capability,
  call: Call,
  args: Args,
  deps: Deps,
  config: Config | undefined,
  seat: ConsentSeat | undefined,
  signal: AbortSignal,
): Promise<void> | undefined {
  if (call.origin.kind !== "agent") return undefined;
  const policy = deps.policy.current();
  // the operator's list cannot be known (a config.toml that never read, its confirm with it): each call is asked
  if (config !== undefined && !needsConsent(cap, confirmList(policy, config))) return undefined;
  return askConsent(cap, { ...call, origin: call.origin }, args, deps, policy, seat, signal, config === undefined);
}

async function askConsent(
  cap: Capability,
  call: Call & { origin: AgentOrigin },
  args: Args,
  deps: Deps,
  policy: Policy,
  seat: ConsentSeat | undefined,
  signal: AbortSignal,
  listUnknown: boolean,
): Promise<void> {
  const timeoutMs = policy.consentTimeout ?? CONSENT_TIMEOUT_MS;
  const prompt = consentPrompt(cap, call.origin.name, args, deps, timeoutMs, call.profile);
  const answer = seat ? await seat.ask(prompt, signal) : "unavailable";
  if (answer === "accept" || typeof answer === "object") return;
  if (answer === "unavailable")
    throw new RtaError(
      "core.consent.unavailable",
      listUnknown
        ? `the operator's confirm list cannot be read now, so ${cap.name} runs only once a person accepts the call, and this client cannot ask its user`
        : `${cap.name} runs only once a person accepts the call, and this client cannot ask its user`,
      listUnknown
        ? "ask the operator to run `rta doctor`"
        : "use a client that supports elicitation, or ask the operator to run it",
    );
  throw declined(cap, answer, prompt);
}

/** The refusal for a person who said no, or did not answer in time. Refuses nothing itself. */
export function declined(cap: Capability, answer: ConsentAnswer, prompt: ConsentPrompt): RtaError {
  return new RtaError(
    "core.consent.declined",
    answer === "timeout"
      ? `${cap.name} runs only once a person accepts the call, and no answer came within ${Math.round(prompt.timeoutMs / 1000)} s`
      : `${cap.name} runs only once a person accepts the call, and the person declined it`,
    "do not retry on your own; ask the user whether they want it done",
  );
}

/** The refusal for a call whose grant was revoked while a person was asked to accept it. Refuses nothing itself. */
export function revokedWhileAsked(grant: { id: string }): RtaError {
  return new RtaError(
    "core.grant.required",
    `grant ${grant.id} was revoked while a person was asked to accept the call`,
    "do not retry on your own; ask the user whether they want it done",
  );
}

/** The most characters of one argument a prompt shows; the rest is said as a count. */
const SHOWN_CHARS = 200;

/**
 * One line per argument a prompt shows, `name: value`. A value with a line
 * break or any other control character is shown quoted, escaped, so an
 * agent cannot write lines of its own into the question (a `recursive:
 * false` that is not); a long one is cut, with its length said. Refuses nothing.
 */
export function argLines(shown: Record<string, unknown>): string[] {
  return Object.entries(shown).map(([k, v]) => `${k}: ${shownValue(v)}`);
}

/**
 * One value as a question shows it, on one line: quoted and escaped when it
 * holds a line break or any other control character, cut past SHOWN_CHARS
 * with its length said. Refuses nothing.
 */
export function shownValue(v: unknown): string {
  let text = typeof v === "string" && !/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(v) ? v : JSON.stringify(v);
  text = text.replace(/[\p{Cf}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (text.length > SHOWN_CHARS) text = `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters in all)`;
  return text;
}

/**
 * A call's arguments as a person is shown them: a secret input's value masked, and each value the record masks (one
 * this process revealed to an agent or an agent stored as a secret: recordMask.ts), rta's own places as the agent sees
 * them. Refuses nothing.
 */
export function shownArgs(cap: Capability, args: Args, deps: Deps): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  const hidden = hiddenFor(deps, undefined);
  for (const [name, spec] of inputEntries(cap)) {
    const v = args[name];
    if (v === undefined) continue;
    if (spec.secret) shown[name] = MASK;
    else if (typeof v === "string") shown[name] = maskHidden(deps.redactor.shown(spec.path ? pathShown(v) : v), hidden);
    else shown[name] = hidden.length === 0 ? v : maskedDeep(v, hidden);
  }
  return shown;
}

/** A value with each hidden string masked in every string it holds, its keys too. Refuses nothing. */
function maskedDeep(v: unknown, hidden: readonly string[]): unknown {
  if (typeof v === "string") return maskHidden(v, hidden);
  if (Array.isArray(v)) return v.map((x) => maskedDeep(x, hidden));
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [maskHidden(k, hidden), maskedDeep(x, hidden)]));
}

/**
 * The seat a call is asked at: the client's, the operator's when the policy
 * says `consent = "operator"`, and the operator's too when the client cannot
 * ask (answers "unavailable") and an operator is watching. Refuses nothing.
 */
export function seatWithOperator(
  client: ConsentSeat | undefined,
  operator: (ConsentSeat & { watched(): boolean }) | undefined,
  deps: Deps,
): ConsentSeat | undefined {
  if (operator === undefined) return client;
  // the operator's seat alone (the stdio direct path's calls, which have no client seat) is made once per operator
  if (client === undefined) {
    const made = operatorSeats.get(operator);
    if (made?.deps === deps) return made.seat;
    const seat = withOperator(client, operator, deps);
    operatorSeats.set(operator, { deps, seat });
    return seat;
  }
  return withOperator(client, operator, deps);
}

/** The operator's own seat, by operator, with the deps it was made for. */
const operatorSeats = new WeakMap<object, { deps: Deps; seat: ConsentSeat }>();

function withOperator(
  client: ConsentSeat | undefined,
  operator: ConsentSeat & { watched(): boolean },
  deps: Deps,
): ConsentSeat {
  return {
    async ask(prompt, signal) {
      let where: "client" | "operator" = "client";
      try {
        if (deps.policy.current().consent === "operator") where = "operator";
      } catch {
        // a policy that does not read refuses the call in stage 9 before any seat is asked
      }
      if (where === "operator" || client === undefined)
        return operator.watched() || where === "operator" ? operator.ask(prompt, signal) : "unavailable";
      const answer = await client.ask(prompt, signal);
      return answer === "unavailable" && operator.watched() ? operator.ask(prompt, signal) : answer;
    },
  };
}

/** The prompt for one call: what it is, what it does, and each argument it runs with. Refuses nothing. */
export function consentPrompt(
  cap: Capability,
  agent: string,
  args: Args,
  deps: Deps,
  timeoutMs: number,
  profile?: string,
): ConsentPrompt {
  // the profile a call names is said first: the same arguments under another profile reach another place
  const shown = { ...(profile !== undefined ? { profile } : {}), ...shownArgs(cap, args, deps) };
  const message = [`${agent} asks to run ${cap.name} (${cap.summary})`, ...argLines(shown), "Allow it?"].join("\n");
  return {
    capability: cap.name,
    tool: cap.tool,
    agent,
    description: cap.summary,
    args: shown,
    message,
    timeoutMs,
    kind: "consent",
  };
}

/**
 * A path as a person is shown it: where a `..` leads, first, then what was
 * written, so a long name the question cuts cannot hide a tail that climbs
 * out of it (`cache/aaa…/../../src` is `src`). Refuses nothing.
 */
function pathShown(path: string): string {
  if (!path.split("/").includes("..")) return path;
  return `${posix.normalize(path)} (written ${JSON.stringify(path)})`;
}
