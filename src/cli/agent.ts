/**
 * `rta agent log` and `rta agent overview`: what agents did, read back from
 * the record. Never tools.
 */
import { closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { namesAgent, optionalAgentName } from "../core/agentName.ts";
import { dirs, RECORD_FILE } from "../core/dirs.ts";
import { parseDuration } from "../core/duration.ts";
import { Exit, type RtaError } from "../core/errors.ts";
import { type Scalar, table } from "../core/result.ts";
import type { RecordLine } from "../record/append.ts";
import { eachRecordLine, parseRecord } from "../record/read.ts";
import type { Cli } from "./factory.ts";
import { paint, wantsJson } from "./io.ts";
import { verifyRecord } from "./recordVerify.ts";
import { jsonShown, renderHuman, shown } from "./render.ts";
import { reportError } from "./report.ts";

export interface LogOptions {
  session?: string;
  agent?: string;
  since?: string;
  code?: string;
  follow?: boolean;
  verify?: boolean;
  json?: boolean;
}

/** How often --follow looks for new lines. */
const FOLLOW_POLL_MS = 200;

/** The record's path in the data dir the environment names; refuses nothing (the file need not exist). */
export function recordFile(cli: Cli): string {
  return join(dirs(cli.io.env).data, RECORD_FILE);
}

/**
 * `rta agent log`: the record's agent calls that match the filters, once or followed; refuses a bad --agent or
 * --since before anything is read. With --verify, the record's chain is checked instead.
 */
export async function log(cli: Cli, opts: LogOptions): Promise<number> {
  const { io } = cli;
  const file = recordFile(cli);
  if (opts.verify) return verifyRecord(cli, file, opts.json === true);
  let match: (l: RecordLine) => boolean;
  try {
    match = filter(opts, Date.now());
  } catch (err) {
    return reportError(io, err as RtaError, opts.json === true);
  }
  const asJson = wantsJson(io, opts.json);
  // The record is read and shown a line at a time: an agent can make it larger than memory (see read.ts).
  const out = new Batched(io);
  if (!opts.follow) {
    let count = 0;
    if (asJson) out.add("[");
    eachRecordLine(file, (l) => {
      if (!l || !match(l)) return;
      out.add(asJson ? `${count > 0 ? "," : ""}${jsonShown(l)}` : `${humanLine(l)}\n`);
      count++;
    });
    if (asJson) out.add("]\n");
    else if (count === 0) out.add(`no calls in ${file}${describeFilter(opts)}\n`);
    out.flush();
    return Exit.ok;
  }
  // Following: each line as it is appended, one JSON object a line with --json.
  const lineOf = (l: RecordLine) => `${asJson ? jsonShown(l) : humanLine(l)}\n`;
  eachRecordLine(file, (l) => {
    if (l && match(l)) out.add(lineOf(l));
  });
  out.flush();
  let offset = sizeOf(file);
  let carry = "";
  for (;;) {
    await Bun.sleep(FOLLOW_POLL_MS);
    const size = sizeOf(file);
    if (size < offset) offset = 0; // the record was replaced: read it from the start
    if (size === offset) continue;
    const chunk = readFrom(file, offset, size - offset);
    offset = size;
    const text = carry + chunk;
    const cut = text.lastIndexOf("\n");
    carry = text.slice(cut + 1);
    for (const l of parseRecord(text.slice(0, cut + 1)).lines) if (match(l)) io.out(lineOf(l));
  }
}

/** How much output is gathered before it is written: one write a line would cost a system call each. */
const OUTPUT_BATCH_CHARS = 64 * 1024;

/** Output gathered into writes of about OUTPUT_BATCH_CHARS. */
class Batched {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly io: Cli["io"]) {}

  add(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= OUTPUT_BATCH_CHARS) this.flush();
  }

  flush(): void {
    if (this.parts.length > 0) this.io.out(this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }
}

function filter(opts: LogOptions, now: number): (l: RecordLine) => boolean {
  optionalAgentName(opts.agent); // a name no agent can have is refused, not searched for
  const since = opts.since !== undefined ? now - parseDuration(opts.since, "--since") : undefined;
  return (l) =>
    !l.kind &&
    (opts.session === undefined || l.session === opts.session) &&
    (opts.agent === undefined || namesAgent(opts.agent, l.agent)) &&
    (opts.code === undefined || l.outcome === opts.code) &&
    (since === undefined || Date.parse(l.time) >= since);
}

function describeFilter(opts: LogOptions): string {
  const parts = [
    opts.session && `session ${opts.session}`,
    opts.agent && `agent ${opts.agent}`,
    opts.code && `code ${opts.code}`,
    opts.since && `the last ${opts.since}`,
  ].filter(Boolean);
  return parts.length ? ` for ${parts.join(", ")}` : "";
}

/** One record line as a person reads it, every field escaped; refuses nothing. */
export function humanLine(l: RecordLine): string {
  const extras = [l.grant && `grant ${l.grant}`, l.probe && "probe"].filter(Boolean).join("  ");
  // Every field is shown escaped: the record holds what an agent chose (its name, its tool names) and what
  // anyone who wrote the file put there.
  const fields = [l.time.replace(/\.\d+Z$/, "Z"), l.session, l.agent, l.capability, l.outcome].map((f) =>
    shown(String(f)),
  );
  return `${fields.join("  ")}  ${shown(String(l.duration_ms))} ms${extras ? `  ${shown(extras)}` : ""}`;
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

interface SessionSummary {
  session: string;
  agents: string[];
  client: string;
  transport: string;
  first: string;
  last: string;
  calls: number;
  refusals: number;
  probes: number;
  grants_spent: number;
  ended: boolean;
}

/** `rta agent overview`: sessions, agents, calls, refusals by code, probes and grants spent, from the record. */
export function overview(cli: Cli, opts: { detail?: boolean; json?: boolean }): number {
  const { io } = cli;
  const file = recordFile(cli);
  const sessions = new Map<string, SessionSummary>();
  const refusals: Record<string, number> = {};
  const agents = new Set<string>();
  const sessionAgents = new Map<string, Set<string>>();
  let calls = 0;
  let probes = 0;
  let grants = 0;
  eachRecordLine(file, (l) => {
    if (!l) return;
    const s = sessions.get(l.session) ?? {
      session: l.session,
      agents: [],
      client: "",
      transport: l.transport,
      first: l.time,
      last: l.time,
      calls: 0,
      refusals: 0,
      probes: 0,
      grants_spent: 0,
      ended: false,
    };
    sessions.set(l.session, s);
    s.last = l.time;
    if (l.kind === "end") s.ended = true;
    if (l.kind) return;
    calls++;
    s.calls++;
    agents.add(l.agent);
    // A set, not the list's own search: over stdio an agent can name itself anew on every call (the 2026-07-28
    // era sends the client's name with each request), and a search of the list each line was quadratic.
    const named = sessionAgents.get(l.session) ?? new Set<string>();
    sessionAgents.set(l.session, named.add(l.agent));
    s.client = l.client;
    if (l.outcome !== "ok") {
      refusals[l.outcome] = (refusals[l.outcome] ?? 0) + 1;
      s.refusals++;
    }
    if (l.probe) {
      probes++;
      s.probes++;
    }
    if (l.grant) {
      grants++;
      s.grants_spent++;
    }
  });
  for (const [session, named] of sessionAgents) (sessions.get(session) as SessionSummary).agents = [...named];
  const summary = {
    sessions: sessions.size,
    agents: [...agents].sort(),
    calls,
    refusals,
    probes,
    grants_spent: grants,
  };
  if (wantsJson(io, opts.json)) {
    io.out(`${jsonShown(opts.detail ? { ...summary, file, each_session: [...sessions.values()] } : summary)}\n`);
    return Exit.ok;
  }
  const p = paint(io);
  let out = `${p.bold("sessions")}  ${summary.sessions}\n${p.bold("agents")}    ${summary.agents.map(shown).join(", ") || "-"}\n${p.bold("calls")}     ${calls}\n`;
  out += `${p.bold("probes")}    ${probes}\n${p.bold("grants")}    ${grants} uses spent\n${p.bold("refusals")}  ${Object.keys(refusals).length === 0 ? "none" : ""}\n`;
  for (const [code, n] of Object.entries(refusals).sort((a, b) => b[1] - a[1])) out += `  ${shown(code)}  ${n}\n`;
  if (opts.detail) {
    out += `\n${p.bold("record")}  ${file}\n`;
    const rows: Scalar[][] = [...sessions.values()].map((s) => [
      s.session,
      s.agents.join(","),
      s.client,
      s.first,
      s.last,
      s.calls,
      s.refusals,
      s.ended ? "ended" : "open",
    ]);
    out += renderHuman(table(["session", "agents", "client", "first", "last", "calls", "refusals", "state"], rows), p);
  }
  io.out(out);
  return Exit.ok;
}
