/**
 * The one pipeline. Every call, from any front (CLI, MCP over stdio or HTTP, a
 * plugin), is one `Call` value and passes this function; no front repeats a
 * check. The stages run in the order of DESIGN section 1, which is part of the
 * contract: a call refused by an earlier stage spends nothing a later one
 * guards.
 *
 *   1  resolve      unknown tool (a never-a-tool name gets the same answer)
 *   2  shape        core.mcp.badargs (agents) / core.input.invalid (a person)
 *   3  declaration  core.input.option, core.input.range, core.input.missing
 *   4  lock         core.lock.locked (agents; free reads too)
 *   5  fill         core.config.invalid, core.profile.unreadable
 *   6  grant        core.grant.required, core.grant.ceiling (agents; what is above a free read, or names a profile;
 *                   with ask_for_grants, a person may be asked for the grant instead: core.consent.*;
 *                   a plugin's grant covers only the binary it was issued against)
 *   6a rate        core.rate.limited (agents, when config has [limits]: a use of the grant just spent is given back)
 *      (artifact)   core.plugin.invalid: a plugin's binary no longer hashes to the one that described it
 *   7  profile      core.profile.fenced, core.profile.unknown (a named profile's settings and fences)
 *   8  required     core.input.missing (what only a profile or the operator gives)
 *   9  consent      core.consent.declined, core.consent.unavailable, core.consent.asked (agents; a capability or
 *                   area on a confirm list runs only once a person accepts the call live, even under a grant)
 *   10 paths        core.path.* (every path argument opened under a root)
 *      (record)     core.record.unavailable: a call with effects runs only once stage 14 has written its `run`
 *                   line (a refusal from 7 to here gives the grant's use back: the call ran nothing); a free
 *                   read that aims nowhere writes none, and is answered only once its outcome line is written
 *   11 run          the capability's own codes
 *   12 bound        core.result.toolarge, core.mcp.result.cut, core.mcp.result.toolarge (agents)
 *   13 redact       rta's own places and any secret, out of what an agent is told (the agent's own words kept)
 *   14 record       every agent call, refusals and probes included, with the error as it was written
 */
import type { AgentOrigin, Call, Outcome } from "../core/call.ts";
import { type Args, aimsNowhere, type RunContext } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { usable } from "../core/config.ts";
import { confirmConfig } from "../core/configConfirm.ts";
import { asRtaError, RtaError } from "../core/errors.ts";
import { lap } from "../core/profile.ts";
import { agentLimits, bound, type Limits, UNBOUNDED } from "./bound.ts";
import { type ConsentSeat, checkConsent, revokedWhileAsked } from "./consent.ts";
import { spendOrAsk } from "./consentGrant.ts";
import { checkDeclaration } from "./declaration.ts";
import type { Deps } from "./deps.ts";
import { execute } from "./execute.ts";
import { configFor, fill } from "./fill.ts";
import type { Grant } from "./gateStore.ts";
import { spendGrant } from "./grants.ts";
import { checkLock } from "./locks.ts";
import type { OpenedPath } from "./paths/handles.ts";
import { accessOf, closePaths, mayMakeParents, openPaths, personAccess, withRoots } from "./paths/stage.ts";
import { artifactDigest, checkDescribedDigest } from "./pluginDigest.ts";
import { applyProfile, requireFilled } from "./profiles.ts";
import { checkRate } from "./rateLimit.ts";
import { type CallTrace, recordCall, recordRun, withheld } from "./recordCall.ts";
import { maskError, noteRevealed, noteSecrets, secretValues } from "./recordMask.ts";
import { redactOutcome } from "./redactStage.ts";
import { resolve } from "./resolve.ts";
import { checkShape } from "./shape.ts";

export type { Outcome } from "../core/call.ts";

export interface PipelineOptions {
  signal?: AbortSignal;
  /** the agent's result bounds (the server's --max-result); a person is never bounded */
  limits?: Limits;
  /** called with what was thrown when it was not an RtaError, before it is made bare */
  onUnexpected?: (thrown: unknown) => void;
  /** a person's terminal, told what a long walk has seen; an agent's call is never handed it */
  progress?: RunContext["progress"];
  /** where a person is asked to accept a call on a confirm list (stage 9); without one such a call is refused */
  consent?: ConsentSeat;
  /** told, once the call is recorded, the grant it spent a use of (the operator channel says it) */
  onSpent?: (grant: string) => void;
}

/** Runs one call through every stage and records it; never throws: a refusal or failure is the outcome's error. */
export async function runCall(
  call: Call,
  catalogue: Catalogue,
  deps: Deps,
  options: PipelineOptions = {},
): Promise<Outcome> {
  const trace: CallTrace = { call, started: deps.clock.now(), outcome: "ok", probe: false };
  const ran = await stages(call, catalogue, deps, options, trace);
  let kept = recordCall(trace, deps);
  if (kept !== true && kept !== false) kept = await kept;
  lap("record: outcome line");
  if (trace.grant !== undefined) options.onSpent?.(trace.grant);
  // A call that ran with no `run` line is on the record by its outcome line alone: unwritten, nothing is told.
  const outcome: Outcome = kept || !trace.unrecordedRun ? ran : { ok: false, error: withheld() };
  // a value revealed is the caller's to see as it is stored; a secret it sent is said in no error
  const said: Outcome =
    outcome.ok || !trace.secrets ? outcome : { ok: false, error: maskError(outcome.error, trace.secrets) };
  const shown =
    call.origin.kind === "agent" && !(said.ok && trace.revealed) ? redactOutcome(said, call, deps.redactor) : said;
  lap("redaction");
  return shown;
}

/**
 * A call refused after the grant stage and before it runs (a profile's fence, an input still missing, a path the
 * gate refuses, a record that cannot be written) did nothing the grant was for: the use is given back, or a one-use
 * grant would be lost to a typo. Returns what it is handed, to be thrown.
 */
function givenBack(err: unknown, grant: Grant | undefined, trace: CallTrace, deps: Deps): unknown {
  if (grant) {
    deps.gate().giveBack(grant.id);
    trace.grant = undefined;
  }
  return err;
}

/**
 * The call's `run` line, written before it runs; throws (or, from a sink that commits in batches, a PostgreSQL
 * store's, rejects) with what stops it, the grant's use given back. A promise only from such a sink.
 */
function recordOrGiveBack(grant: Grant | undefined, trace: CallTrace, deps: Deps): void | Promise<void> {
  let p: void | Promise<void>;
  try {
    p = recordRun(trace, deps);
  } catch (err) {
    throw givenBack(err, grant, trace, deps);
  }
  if (p)
    return p.catch((err) => {
      throw givenBack(err, grant, trace, deps);
    });
  lap("record: run line");
}

/** The call's signal, or one never aborted. */
function signalOf(options: PipelineOptions): AbortSignal {
  return options.signal ?? new AbortController().signal;
}

/** Stages 1 to 12, in order; what they end with is noted on the trace for the record. */
async function stages(
  call: Call,
  catalogue: Catalogue,
  deps: Deps,
  options: PipelineOptions,
  trace: CallTrace,
): Promise<Outcome> {
  try {
    const cap = resolve(call, catalogue);
    trace.known = true;
    const secrets = secretValues(cap, call.args);
    if (secrets.length > 0) trace.secrets = secrets;
    lap("resolve, shape, declaration, fill, grant, profile");
    const state = deps.config.current();
    lap("config");
    const read = usable(state);
    const shaped = checkShape(cap, call, catalogue, read);
    const { sent, profile } = checkDeclaration(cap, call, shaped, read);
    lap("resolve, shape, declaration, fill, grant, profile");
    if (call.origin.kind === "agent") checkLock(cap, call.origin, deps.gate(), deps.clock.now());
    lap("lock check");
    const config = configFor(cap, state);
    // A named profile runs against its connection: a grant narrowed with --connection is matched on it.
    const connection =
      profile !== undefined && Object.hasOwn(config.profiles, profile)
        ? config.profiles[profile]?.connection
        : undefined;
    const named: Call = profile !== undefined ? { ...call, profile, ...(connection ? { connection } : {}) } : call;
    const filled = fill(cap, sent, config);
    let grant: Grant | undefined;
    if (named.origin.kind === "agent") {
      const agentCall = named as Call & { origin: AgentOrigin };
      // stage 6, and with ask_for_grants a person asked for the grant the call lacks (consentGrant.ts)
      const spend = () => spendGrant(cap, agentCall, filled, deps.gate(), deps.policy, deps.clock.now());
      const spent = spendOrAsk(spend, cap, agentCall, filled, deps, catalogue, options.consent, signalOf(options));
      grant = spent instanceof Promise ? await spent : spent;
      trace.grant = grant?.id;
    }
    let args: Args;
    try {
      checkRate(cap, named, read, deps);
      // a spent grant matched the binary's digest as it is now: its pin is that digest, not read again
      checkDescribedDigest(cap, grant ? grant.digest : artifactDigest(cap));
      args = applyProfile(cap, named.profile, sent, filled, config);
      requireFilled(cap, args);
      // stage 9: the person is asked about the call as it will run, once nothing before the paths can refuse it
      const asking = checkConsent(cap, named, args, deps, confirmConfig(state), options.consent, signalOf(options));
      if (asking) {
        await asking;
        // a person may have taken minutes to answer: a lock put on meanwhile stops the call the yes would run,
        // and so does the grant it spent being revoked
        if (call.origin.kind === "agent") checkLock(cap, call.origin, deps.gate(), deps.clock.now());
        if (grant && deps.gate().get(grant.id)?.revoked_at != null) throw revokedWhileAsked(grant);
      }
    } catch (err) {
      throw givenBack(err, grant, trace, deps);
    }
    const gate = call.origin.kind === "agent" ? accessOf(withRoots(deps.roots, cap.defaultRoots)) : personAccess();
    // A call with effects runs only once the record holds a line saying so (see recordCall.ts). A walk that makes
    // parents changes something as its paths are opened, so its line is written before they are. A free read that
    // aims nowhere has nothing to record before it runs: its one line is its outcome, written before its answer.
    const makesParents = mayMakeParents(cap, args);
    const runLine = call.origin.kind === "agent" && (grant !== undefined || !aimsNowhere(cap));
    lap("resolve, shape, declaration, fill, grant, profile");
    if (makesParents) {
      const p = recordOrGiveBack(grant, trace, deps);
      if (p) await p;
    }
    let paths: Record<string, OpenedPath>;
    try {
      paths = openPaths(cap, args, gate);
      lap("path gate, open and close");
    } catch (err) {
      // A walk that makes parents may have made some before it was refused: that call changed something.
      throw makesParents ? err : givenBack(err, grant, trace, deps);
    }
    try {
      if (runLine && !makesParents) {
        const p = recordOrGiveBack(grant, trace, deps);
        if (p) await p;
      }
      trace.unrecordedRun = call.origin.kind === "agent" && !runLine;
      const limits = call.origin.kind === "agent" ? (options.limits ?? agentLimits()) : UNBOUNDED;
      const signal = signalOf(options);
      // a value sent to a call that runs may be stored (a cancelled write too): masked in every later line. One refused
      // before it ran was stored nowhere and masks only its own line: else an agent with no grant could have the
      // record mask a tool's name or its own in every line after
      if (trace.secrets && call.origin.kind === "agent") noteSecrets(deps, trace.secrets);
      const ran = await execute(cap, args, {
        call: named,
        deps,
        signal,
        limits,
        paths,
        grant,
        progress: options.progress,
      });
      lap("the capability's run");
      const value = bound(ran, limits);
      lap("bound");
      if (cap.reveals && call.origin.kind === "agent") {
        noteRevealed(deps, value);
        // only rta's own store is shown unmasked: a plugin that reveals could name rta's places, so it is masked
        trace.revealed = cap.plugin === undefined;
      }
      return { ok: true, value };
    } finally {
      closePaths(paths);
      lap("path gate, open and close");
    }
  } catch (thrown) {
    // a call cancelled because a person locked its agent says so, on the record and to the agent
    const reason = options.signal?.aborted ? options.signal.reason : undefined;
    const error = reason instanceof RtaError && reason.code === "core.lock.locked" ? reason : asRtaError(thrown);
    if (error !== thrown) options.onUnexpected?.(thrown);
    trace.outcome = error.code;
    trace.probe = error.code === "core.tool.unknown";
    trace.error = error;
    return { ok: false, error };
  }
}
