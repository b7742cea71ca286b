/**
 * What `rta operator` shows on a terminal, as lines for a screen of a given
 * size: the servers' pending consents, the sessions per agent, and the calls
 * as they happen. Kept from the channel's events; drawn by operatorView.ts.
 * Every text a server sent is escaped (render.ts's shown) and cut to the width.
 */
import type { CallEnded, CallStarted, ChannelEvent, ConsentPending } from "../operator/wire.ts";
import { shown } from "./render.ts";

/** The most calls kept for the view. */
const CALLS_KEPT = 200;

interface CallRow {
  call: string;
  agent: string;
  tool: string;
  args: Record<string, unknown>;
  time: string;
  outcome?: string;
  duration_ms?: number;
}

/** A row the cursor can stand on: a pending consent, or an agent's session. */
export type Selectable =
  | { kind: "consent"; item: ConsentPending }
  | { kind: "session"; agent: string; server: string; session: string };

/** What the view knows, from the events. */
export class OperatorModel {
  readonly servers = new Map<string, { transport: string }>();
  readonly sessions = new Map<string, { agent: string; server: string; transport: string }>();
  readonly pending = new Map<string, ConsentPending>();
  calls: CallRow[] = [];
  note = "";

  /** Takes one event into the model. Refuses nothing. */
  take(e: ChannelEvent): void {
    switch (e.event) {
      case "server":
        this.servers.set(e.server, { transport: e.transport });
        for (const s of e.sessions) this.sessions.set(s.session, { ...s, server: e.server, transport: e.transport });
        for (const p of e.pending) this.pending.set(p.id, p);
        for (const c of e.calls) this.started(c);
        break;
      case "server_ended":
        this.servers.delete(e.server);
        for (const [id, s] of this.sessions) if (s.server === e.server) this.sessions.delete(id);
        for (const [id, p] of this.pending) if (p.server === e.server) this.pending.delete(id);
        break;
      case "session_started":
        this.sessions.set(e.session, {
          agent: e.agent,
          server: e.server,
          transport: this.servers.get(e.server)?.transport ?? "",
        });
        break;
      case "session_ended":
        this.sessions.delete(e.session);
        break;
      case "call_started":
        this.started(e);
        break;
      case "call_ended":
        this.ended(e);
        break;
      case "consent_pending":
        this.pending.set(e.id, e);
        break;
      case "consent_answered":
        this.pending.delete(e.id);
        this.note = `consent ${e.id}: ${e.answer}${e.by === "operator" ? "" : ` (${e.by})`}`;
        break;
      case "call_cancelled":
        this.note = `cancelled ${e.tool} of ${e.agent}: the agent is locked`;
        break;
      case "dropped":
        this.note = `${e.count} event(s) of server ${e.server} were dropped: this view fell behind`;
        break;
      default:
        break;
    }
  }

  private started(e: CallStarted): void {
    if (this.calls.some((c) => c.call === e.call)) return;
    this.calls.push({ call: e.call, agent: e.agent, tool: e.tool, args: e.args, time: e.time });
    if (this.calls.length > CALLS_KEPT) this.calls.splice(0, this.calls.length - CALLS_KEPT);
  }

  private ended(e: CallEnded): void {
    const row = this.calls.find((c) => c.call === e.call);
    if (row) {
      row.outcome = e.outcome;
      row.duration_ms = e.duration_ms;
    }
  }

  /** The rows the cursor moves over, in the order shown. Refuses nothing. */
  selectable(): Selectable[] {
    return [
      ...[...this.pending.values()].map((item) => ({ kind: "consent" as const, item })),
      ...[...this.sessions].map(([session, s]) => ({
        kind: "session" as const,
        agent: s.agent,
        server: s.server,
        session,
      })),
    ];
  }
}

/**
 * One line fitted to `width` columns: escaped, cut with an ellipsis, padded. Columns, not characters: a wide one (CJK,
 * emoji) takes two, and a line of them counted as one each would wrap and scroll the screen. Refuses nothing.
 */
export function fit(text: string, width: number): string {
  const safe = shown(text);
  const used = Bun.stringWidth(safe);
  if (used <= width) return safe + " ".repeat(width - used);
  let cut = "";
  let columns = 0;
  for (const c of safe) {
    const w = Bun.stringWidth(c);
    if (columns + w > width - 1) break;
    cut += c;
    columns += w;
  }
  return `${cut}…${" ".repeat(Math.max(0, width - 1 - columns))}`;
}

/** A call's arguments on one line, `name=value` each. */
function argText(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
}

/** HH:MM:SS of an ISO time, in the local zone. */
function clockTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "--:--:--" : d.toTimeString().slice(0, 8);
}

/** The screen as lines (each exactly `width` columns before painting), for the cursor at `at`. Refuses nothing. */
export function screenLines(
  m: OperatorModel,
  width: number,
  height: number,
  at: number,
): { text: string; style?: "head" | "cursor" | "dim" | "bad" }[] {
  const w = Math.max(20, width);
  const out: { text: string; style?: "head" | "cursor" | "dim" | "bad" }[] = [];
  const rows = m.selectable();
  out.push({
    text: fit(
      `rta operator · ${m.servers.size} server(s) · ${m.sessions.size} session(s) · ${m.pending.size} pending`,
      w,
    ),
    style: "head",
  });
  let index = 0;
  const pendingRows = rows.filter((r) => r.kind === "consent");
  out.push({
    text: fit(pendingRows.length > 0 ? "PENDING CONSENTS  (a approve · d deny)" : "no consent waiting", w),
    style: "dim",
  });
  for (const r of pendingRows) {
    const p = r.item;
    const line = `${index === at ? ">" : " "} ${p.id}  ${p.agent}  ${p.tool}  ${argText(p.args)}  until ${clockTime(p.expires)}`;
    out.push({ text: fit(line, w), ...(index === at ? { style: "cursor" as const } : {}) });
    index++;
  }
  const sessionRows = rows.filter((r) => r.kind === "session");
  out.push({ text: fit(sessionRows.length > 0 ? "SESSIONS  (l lock the agent)" : "no session open", w), style: "dim" });
  for (const r of sessionRows) {
    const calls = m.calls.filter((c) => c.agent === r.agent && c.outcome === undefined).length;
    const line = `${index === at ? ">" : " "} ${r.agent.padEnd(16)} ${m.servers.get(r.server)?.transport ?? ""} ${r.session.slice(0, 12)}  ${calls} under way`;
    out.push({ text: fit(line, w), ...(index === at ? { style: "cursor" as const } : {}) });
    index++;
  }
  out.push({ text: fit("CALLS", w), style: "dim" });
  const footer = [
    { text: fit(m.note, w), style: "dim" as const },
    { text: fit("↑↓ move · a approve · d deny · l lock agent · q quit", w), style: "dim" as const },
  ];
  const room = Math.max(0, height - out.length - footer.length);
  for (const c of m.calls.slice(-room)) {
    const outcome = c.outcome === undefined ? "…" : c.outcome;
    const took = c.duration_ms === undefined ? "" : `${c.duration_ms} ms`;
    const line = `${clockTime(c.time)}  ${c.agent}  ${c.tool}  ${outcome}  ${took}  ${argText(c.args)}`;
    out.push({
      text: fit(line, w),
      ...(c.outcome !== undefined && c.outcome !== "ok" ? { style: "bad" as const } : {}),
    });
  }
  // the lines above the footer are cut to the screen: the footer always shows
  const body = out.slice(0, Math.max(1, height - footer.length));
  while (body.length < height - footer.length) body.push({ text: " ".repeat(w) });
  return [...body, ...footer];
}
