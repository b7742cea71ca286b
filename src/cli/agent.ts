/**
 * `rta agent log` (agentLog.ts) and `rta agent overview`: what agents did,
 * read back from the record. Never tools.
 */
import { Exit } from "../core/errors.ts";
import { type Scalar, table } from "../core/result.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm, paint } from "./io.ts";
import { plainCell } from "./plain.ts";
import { type RecordSource, withRecord } from "./recordSource.ts";
import { renderHuman, shown } from "./render.ts";

export { log } from "./agentLog.ts";
export { humanLine } from "./agentLogLines.ts";

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

/**
 * `rta agent overview`: sessions, agents, calls, refusals by code, probes and
 * grants spent, from the record: words on a terminal, key<TAB>value lines
 * piped, JSON with --json. Refuses only a record it cannot read.
 */
export function overview(cli: Cli, opts: { detail?: boolean; json?: boolean }): Promise<number> {
  return withRecord(cli, opts.json === true, (source) => overviewOf(cli, source, opts));
}

function overviewOf(cli: Cli, source: RecordSource, opts: { detail?: boolean; json?: boolean }): number {
  const { io } = cli;
  const file = source.where;
  const sessions = new Map<string, SessionSummary>();
  const refusals: Record<string, number> = {};
  const agents = new Set<string>();
  const sessionAgents = new Map<string, Set<string>>();
  let calls = 0;
  let probes = 0;
  let grants = 0;
  source.each((l) => {
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
  const form = outputForm(io, opts.json);
  if (form === "json") {
    io.out(
      jsonText(
        io,
        opts.detail
          ? { ...summary, ...(source.file ? { file } : { store: file }), each_session: [...sessions.values()] }
          : summary,
      ),
    );
    return Exit.ok;
  }
  if (form === "plain") {
    // key<TAB>value lines; a refusal code and a session are one line each, named by their first field
    const lines: Scalar[][] = [
      ["sessions", summary.sessions],
      ["agents", summary.agents.join(",")],
      ["calls", calls],
      ["probes", probes],
      ["grants_spent", grants],
      ...Object.entries(refusals)
        .sort((a, b) => b[1] - a[1])
        .map(([code, n]): Scalar[] => ["refusal", code, n]),
    ];
    if (opts.detail) {
      lines.push(["record", file]);
      for (const s of sessions.values())
        lines.push([
          "session",
          s.session,
          s.agents.join(","),
          s.client,
          s.first.replace(/\.\d+Z$/, "Z"),
          s.last.replace(/\.\d+Z$/, "Z"),
          s.calls,
          s.refusals,
          s.ended ? "ended" : "open",
        ]);
    }
    io.out(lines.map((l) => `${l.map(plainCell).join("\t")}\n`).join(""));
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
