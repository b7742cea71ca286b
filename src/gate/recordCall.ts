/**
 * Stage 14, record: one line per agent call, refusals and probes included.
 * A person's calls at the terminal are theirs and are not recorded. An error
 * is kept as it was written, since the record is the person's, with its
 * secrets masked.
 *
 * A call that is about to run is written down first (`recordRun`, a `run`
 * line), and does not run when that line cannot be written. The outcome line
 * comes after, as before. Why a line before the run, and not a room check or
 * a reservation: only a write that succeeded proves the next can be kept, and
 * a statfs or a reserved file says nothing of a store that is locked, a file
 * made read-only or a quota, while a full disk can still fail the write after.
 * With the `run` line down, a call whose outcome line is then lost is still
 * on the record as one that ran. A refusal runs nothing, so it writes only
 * its outcome, and an unwritable record never turns a refusal into a run.
 *
 * A free read that aims nowhere (core/capability.ts `aimsNowhere`, no grant
 * spent) has no effect outside its answer: nothing to record before it runs.
 * It runs, its outcome line is written, and only then is it answered; when
 * that line cannot be written the answer is withheld (core.record.unavailable),
 * so the agent learns nothing the record does not hold. Its one line is the
 * whole call, and a server killed after the answer has it on the record.
 *
 * Everything a caller chose is bounded here before it is written: a 3.9 MB
 * tool name sent as a free probe must not cost megabytes of disk a line.
 */
import { createHash } from "node:crypto";
import type { Call } from "../core/call.ts";
import { RtaError } from "../core/errors.ts";
import { lap } from "../core/profile.ts";
import { maskSecrets } from "../core/secrets.ts";
import type { RecordEntry } from "../record/append.ts";
import type { Deps } from "./deps.ts";
import { hiddenFor, maskEntry } from "./recordMask.ts";

/** A name a caller chose (tool, agent, client, argument): longer than any real one, short enough to cost nothing. */
export const RECORDED_NAME_BYTES = 256;
/** The argument names of one call, as JSON: past this the list is cut and its size and digest kept instead. */
export const RECORDED_ARGS_BYTES = 4 * 1024;
/** An error's message or hint, which can repeat what the caller sent. */
export const RECORDED_ERROR_BYTES = 4 * 1024;

export interface CallTrace {
  call: Call;
  started: number;
  outcome: string;
  probe: boolean;
  /** the id of the grant the call spent a use of */
  grant?: string;
  /** the refusal or failure, as it was written for the person */
  error?: RtaError;
  /** the call ran with no `run` line (a free read that aims nowhere): it is answered only if its outcome is written */
  unrecordedRun?: boolean;
  /** what the caller chose, as its lines write it: cut and measured once, for the `run` line and the outcome's */
  chosen?: CallerChosen;
  /** the values of the call's secret inputs, masked wherever its lines would hold them (recordMask.ts) */
  secrets?: readonly string[];
  /** the call revealed a stored value (recordMask.ts): its answer is the caller's as stored */
  revealed?: boolean;
  /** the tool it named is one of the catalogue's: a name every agent is told, so no secret of the caller's to mask */
  known?: boolean;
}

/** The fields of a line that the caller chose, each bounded. */
type CallerChosen = Pick<RecordEntry, "agent" | "client" | "capability" | "args" | "args_cut">;

/**
 * Writes the line that says an agent's call is about to run. Refuses with
 * core.record.unavailable when it cannot be written: the call must not run.
 * A sink that commits in batches gives a promise, rejected so, to be awaited
 * before the call runs.
 */
export function recordRun(trace: CallTrace, deps: Deps): void | Promise<void> {
  const entry = entryFor(trace, deps);
  if (!entry) return;
  lap("record: entry");
  try {
    const p = deps.record.append({ ...entry, kind: "run", outcome: "run", duration_ms: 0 });
    if (p instanceof Promise) return p.catch(() => Promise.reject(runUnrecorded()));
  } catch {
    throw runUnrecorded();
  }
}

function runUnrecorded(): RtaError {
  return new RtaError(
    "core.record.unavailable",
    "the call was not run: its line cannot be written to the record",
    "a person must make the record writable again; the call can then be sent again",
  );
}

/**
 * Writes an agent call's outcome, before it is answered; false when it could not be written (said once on the
 * server's stderr by the sink). A call with a `run` line is on the record as one that ran either way; one without
 * (trace.unrecordedRun) must then have its answer withheld. A sink that commits in batches gives a promise of the
 * same, never rejected, to be awaited before the call is answered.
 */
export function recordCall(trace: CallTrace, deps: Deps): boolean | Promise<boolean> {
  const entry = entryFor(trace, deps);
  if (!entry) return true;
  lap("record: entry");
  try {
    const p = deps.record.append(entry);
    if (p instanceof Promise) return p.then(committed, uncommitted);
    return true;
  } catch {
    return false;
  }
}

const committed = () => true;
const uncommitted = () => false;

/** What an agent is told in place of the answer of a free read whose outcome line could not be written. */
export function withheld(): RtaError {
  return new RtaError(
    "core.record.unavailable",
    "the answer was withheld: the call's line cannot be written to the record",
    "a person must make the record writable again; the call can then be sent again",
  );
}

function entryFor(trace: CallTrace, deps: Deps): RecordEntry | undefined {
  const { call } = trace;
  if (call.origin.kind !== "agent") return undefined;
  if (!trace.chosen) {
    const names =
      call.args !== null && typeof call.args === "object" && !Array.isArray(call.args) ? Object.keys(call.args) : [];
    trace.chosen = {
      agent: cutName(call.origin.name),
      client: cutName(call.origin.client),
      capability: cutName(call.capability),
      ...recordedArgs(names),
    };
  }
  const { agent, client, capability, args, args_cut } = trace.chosen;
  // Fields set one by one, not spread in: a line's templates (lineText.ts) fix their order, not this object.
  const entry: RecordEntry = {
    time: new Date(trace.started).toISOString(),
    session: call.origin.session,
    agent,
    client,
    transport: call.origin.transport,
    capability,
    outcome: trace.outcome,
    duration_ms: Math.max(0, deps.clock.now() - trace.started),
    args,
  };
  if (call.origin.via !== undefined) entry.via = call.origin.via;
  if (trace.probe) entry.probe = true;
  if (trace.grant) entry.grant = trace.grant;
  if (args_cut) entry.args_cut = args_cut;
  if (trace.error) entry.error = recordedError(trace.error);
  maskEntry(entry, hiddenFor(deps, trace.secrets), trace.known === true);
  return entry;
}

/** A caller's name, cut to RECORDED_NAME_BYTES as the line writes them, with a mark that it was cut. */
export function cutName(name: string): string {
  return cutUtf8(name, RECORDED_NAME_BYTES);
}

/** The argument names, each cut; a list longer than RECORDED_ARGS_BYTES keeps what fits and says what it was. */
export function recordedArgs(names: string[]): Pick<RecordEntry, "args" | "args_cut"> {
  const whole = JSON.stringify(names);
  const bytes = Buffer.byteLength(whole);
  const args: string[] = [];
  let used = 2;
  for (const name of names) {
    const cut = cutName(name);
    const cost = Buffer.byteLength(JSON.stringify(cut)) + 1;
    if (used + cost > RECORDED_ARGS_BYTES) break;
    args.push(cut);
    used += cost;
  }
  if (args.length === names.length && bytes <= RECORDED_ARGS_BYTES) return { args };
  return { args, args_cut: { names: names.length, bytes, sha256: createHash("sha256").update(whole).digest("hex") } };
}

function recordedError(e: RtaError): { message: string; hint?: string; detail?: string } {
  const message = cutUtf8(maskSecrets(e.message), RECORDED_ERROR_BYTES);
  const out: { message: string; hint?: string; detail?: string } = { message };
  if (e.hint !== undefined) out.hint = cutUtf8(maskSecrets(e.hint), RECORDED_ERROR_BYTES);
  // a plugin's stderr tail, kept for the person reading the record (8 KiB at most, as the host keeps it)
  if (e.detail !== undefined) out.detail = cutUtf8(maskSecrets(e.detail), 2 * RECORDED_ERROR_BYTES + 1024);
  return out;
}

const CUT_MARK = "…";

/**
 * What a text costs in a record line: its bytes as JSON writes them. A control
 * character is one byte of UTF-8 and six written out (\u0001), so a cut
 * counted in UTF-8 let 4 KiB of message become 24 KiB on disk: a line six
 * times the size the caps promise, and a disk filled six times as fast.
 */
function recordedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** At most `max` bytes as the record writes them, never splitting a character; a cut text ends with "…". */
function cutUtf8(text: string, max: number): string {
  // A UTF-16 unit is at most 6 bytes written out: most names are measured by their length alone.
  if (text.length * 6 <= max || recordedBytes(text) <= max) return text;
  const room = max - Buffer.byteLength(CUT_MARK);
  // The longest start that fits, found by halving: each try measures at most `room` units.
  let fits = 0;
  let over = Math.min(text.length, room) + 1;
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    if (recordedBytes(text.slice(0, mid)) <= room) fits = mid;
    else over = mid;
  }
  let end = fits;
  // A lone high surrogate at the end would be half a character.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${CUT_MARK}`;
}
