/**
 * `rta agent log`: what agents did, read back from the record a line at a
 * time, once or followed. On a terminal a call is a line of fields two spaces
 * apart; piped, tab-separated with the time in ISO, one call a line, so
 * `| grep`, `| cut` and `| head` do the natural thing; --json gives an array,
 * or one object a line while following. Never a tool.
 */
import { closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { namesAgent, optionalAgentName } from "../core/agentName.ts";
import { parseDuration } from "../core/duration.ts";
import { Exit, type RtaError } from "../core/errors.ts";
import type { RecordLine } from "../record/append.ts";
import { eachRecordLine, parseRecord } from "../record/read.ts";
import { Batched, lineFor } from "./agentLogLines.ts";
import { follow, type LineTail, STORE_POLL_MS } from "./agentLogStore.ts";
import type { Cli } from "./factory.ts";
import { type Form, outputForm } from "./io.ts";
import { readerLeft } from "./listing.ts";
import { type RecordSource, withRecord } from "./recordSource.ts";
import { verifyRecord, verifyStore } from "./recordVerify.ts";
import { jsonShown, shown } from "./render.ts";
import { reportError } from "./report.ts";

export interface LogOptions {
  /** an id, or true for the latest session */
  session?: string | true;
  agent?: string;
  since?: string;
  code?: string;
  follow?: boolean;
  verify?: boolean;
  json?: boolean;
}

/** How often --follow looks for new lines. */
const FOLLOW_POLL_MS = 200;

/**
 * `rta agent log`: the record's agent calls that match the filters, once or
 * followed; `--session` with no id is the latest session. Refuses a bad
 * --agent or --since before anything is read. With --verify, the record's
 * chain is checked instead.
 */
export function log(cli: Cli, opts: LogOptions): Promise<number> {
  return withRecord(cli, opts.json === true, (source) => logFrom(cli, source, opts));
}

async function logFrom(cli: Cli, source: RecordSource, opts: LogOptions): Promise<number> {
  const { io } = cli;
  const file = source.where;
  if (opts.verify)
    return source.store
      ? verifyStore(cli, source.store, opts.json === true)
      : verifyRecord(cli, file, opts.json === true);
  let match: (l: RecordLine) => boolean;
  let session: string | undefined;
  try {
    session = opts.session === true ? latestSession(source.each, opts.agent) : opts.session || undefined;
    match = filter({ ...opts, session }, Date.now());
  } catch (err) {
    return reportError(io, err as RtaError, opts.json === true);
  }
  if (opts.session === true && session === undefined) {
    io.err(`no sessions${opts.agent ? ` of agent ${shown(opts.agent)}` : ""} in ${shown(file)} yet\n`);
    if (!opts.follow) return Exit.ok;
    match = () => false; // a session that starts later is not the latest one there was
  }
  const form = outputForm(io, opts.json);
  const said = { ...opts, session };
  // The record is read and shown a line at a time: an agent can make it larger than memory (see read.ts).
  if (!opts.follow) {
    try {
      listOnce(cli, source, match, form, said);
    } catch (err) {
      // the reader went away (`| head`): it had what it wanted, which is no failure
      if (!readerLeft(err)) throw err;
    }
    return Exit.ok;
  }
  return source.store
    ? follow(cli, source.store, match, form, STORE_POLL_MS)
    : follow(cli, fileTail(file), match, form, FOLLOW_POLL_MS);
}

/** Prints the matching lines once, gathered into large writes; refuses only a record it cannot read. */
function listOnce(
  cli: Cli,
  source: RecordSource,
  match: (l: RecordLine) => boolean,
  form: Form,
  said: LogOptions & { session?: string },
): void {
  const { io } = cli;
  const out = new Batched(io);
  let count = 0;
  // --json is one array; on a terminal one element a line, so a long record is still read as it comes.
  const [open, comma, close] = io.stdoutIsTTY ? ["[\n", ",\n", "\n]\n"] : ["[", ",", "]\n"];
  if (form === "json") out.add(open);
  source.each((l) => {
    if (!l || !match(l)) return;
    out.add(form === "json" ? `${count > 0 ? comma : ""}${jsonShown(l)}` : `${lineFor(form, l)}\n`);
    count++;
  });
  if (form === "json") out.add(count > 0 ? close : "]\n");
  // piped, no calls is no lines, as grep says no match; on a terminal it is said, with where it looked
  else if (count === 0 && form === "terminal") out.add(`no calls in ${shown(source.where)}${describeFilter(said)}\n`);
  out.flush();
}

/**
 * The data dir's record read as it grows, for --follow: its lines so far, then those appended since the last look
 * (a line not ended yet waits for the next). A record replaced by a shorter one is read again from its start.
 */
function fileTail(file: string): LineTail {
  let offset = 0;
  let carry = "";
  return {
    eachLine(each) {
      eachRecordLine(file, each);
      offset = sizeOf(file);
    },
    fresh() {
      const size = sizeOf(file);
      if (size < offset) offset = 0; // the record was replaced: read it from the start
      if (size === offset) return [];
      const chunk = readFrom(file, offset, size - offset);
      offset = size;
      const text = carry + chunk;
      const cut = text.lastIndexOf("\n");
      carry = text.slice(cut + 1);
      return parseRecord(text.slice(0, cut + 1)).lines;
    },
  };
}

/**
 * The id of the session that started last: the latest time a start line
 * gives (a server writes its start line at its first call, with the time it
 * started), the later line on a tie; where no line is a start line, the
 * session of the last line. Undefined for an empty record. `from` is the
 * record's file, or a walk of its lines (a store's). With `agent`, only
 * the sessions that agent called in count (a start line names no agent yet),
 * so `--agent claude --session` is claude's latest session. Refuses only a
 * record it cannot read.
 */
export function latestSession(
  from: string | ((fn: (l: RecordLine | undefined) => void) => void),
  agent?: string,
): string | undefined {
  const walk = typeof from === "string" ? (fn: (l: RecordLine | undefined) => void) => eachRecordLine(from, fn) : from;
  const startedAt = new Map<string, number>();
  let started: { session: string; at: number } | undefined;
  let last: string | undefined;
  walk((l) => {
    if (!l) return;
    if (l.kind === "start") startedAt.set(l.session, Date.parse(l.time) || 0);
    if (agent !== undefined && (l.kind || !namesAgent(agent, l.agent))) return;
    last = l.session;
    const at = startedAt.get(l.session);
    if (at !== undefined && (started === undefined || at >= started.at)) started = { session: l.session, at };
  });
  return started?.session ?? last;
}

function filter(opts: LogOptions & { session?: string }, now: number): (l: RecordLine) => boolean {
  optionalAgentName(opts.agent); // a name no agent can have is refused, not searched for
  const since = opts.since !== undefined ? now - parseDuration(opts.since, "--since") : undefined;
  return (l) =>
    !l.kind &&
    (opts.session === undefined || l.session === opts.session) &&
    (opts.agent === undefined || namesAgent(opts.agent, l.agent)) &&
    (opts.code === undefined || l.outcome === opts.code) &&
    (since === undefined || Date.parse(l.time) >= since);
}

function describeFilter(opts: LogOptions & { session?: string }): string {
  const parts = [
    opts.session && `session ${opts.session}`,
    opts.agent && `agent ${opts.agent}`,
    opts.code && `code ${opts.code}`,
    opts.since && `the last ${opts.since}`,
  ].filter(Boolean);
  return parts.length ? ` for ${parts.join(", ")}` : "";
}

/**
 * The record's size, or 0 while what is at its name is no file: a dir or FIFO put in its place is waited out as a
 * record not started yet (reading a dir's size as lines failed as core.internal), and followed again once a file is back.
 */
function sizeOf(file: string): number {
  try {
    const st = statSync(file);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

function readFrom(file: string, offset: number, length: number): string {
  // Non-blocking: a FIFO swapped in since the size was read is not waited on for good.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const buf = Buffer.allocUnsafe(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.toString("utf8", 0, n);
  } finally {
    closeSync(fd);
  }
}
