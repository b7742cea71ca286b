/**
 * The record in a PostgreSQL store (pgRecord.ts) read back, for `rta agent
 * log --store …`, `agent overview` and `--verify`: through the synchronous
 * bridge (pgBridge.ts), a page of lines at a time, so a record larger than
 * memory is still read. Lines are listed in the order the store numbered
 * them as they were written; --verify walks each session's chain in the
 * order the sessions started.
 */

import { chainMac } from "../../record/chain.ts";
import type { RecordLine } from "../../record/line.ts";
import type { Problem, Verdict } from "../../record/verdict.ts";
import { SyncPg } from "./pgBridge.ts";
import { MIGRATIONS, refuseUnencoded, safeUrl, storeFailure } from "./pgSchema.ts";

/** The schema version whose migration made the record's tables. */
const RECORD_VERSION = MIGRATIONS.findIndex((m) => m.includes("CREATE TABLE record_lines")) + 1;

/** Lines asked for at once: a line is at most about 23 KiB. */
const PAGE = 500;

/** A row's line, parsed; undefined when it is not a record line. */
function parsed(text: string): RecordLine | undefined {
  try {
    const l = JSON.parse(text) as RecordLine;
    return l !== null && typeof l === "object" && typeof l.session === "string" ? l : undefined;
  } catch {
    return undefined;
  }
}

export class PgRecordReader {
  private readonly pg: SyncPg;
  /** each session's last seq handed to `fresh`'s caller */
  private readonly seen = new Map<string, number>();
  /** the sessions whose end line was handed: no line comes after it */
  private readonly ended = new Set<string>();
  /** the highest start order `fresh` has asked up to: a session that starts later has a higher one */
  private askedOrd: string | undefined;

  constructor(private readonly url: string) {
    refuseUnencoded(url);
    this.pg = new SyncPg(url);
  }

  /** The store as it may be shown: its URL without the password. */
  get label(): string {
    return safeUrl(this.url);
  }

  close(): void {
    this.pg.close();
  }

  private ask<T = Record<string, unknown>>(text: string, params: unknown[] = []): T[] {
    try {
      return this.pg.query<T>(text, params);
    } catch (err) {
      throw storeFailure(this.url, err);
    }
  }

  /** The newest schema version the store says it ran; 0 for a store with no rta schema. */
  private schemaVersion(): number {
    const [t] = this.ask<{ t: string | null }>("SELECT to_regclass('rta_schema')::text AS t");
    if (t?.t == null) return 0;
    const [row] = this.ask<{ v: string | null }>("SELECT max(version)::text AS v FROM rta_schema");
    return Number(row?.v ?? 0);
  }

  /** Whether the store has the record's tables (a store made before them, or no rta store at all, has not). */
  private hasRecord(): boolean {
    const [row] = this.ask<{ t: string | null }>("SELECT to_regclass('record_lines')::text AS t");
    return row?.t != null;
  }

  /**
   * Each line in the order it was committed (undefined for a row that is no record line), and its place from 1;
   * each line's session and seq are noted, so `fresh` goes on after them. Refuses (core.store.unavailable) a store
   * it cannot read.
   */
  eachLine(each: (line: RecordLine | undefined, at: number) => void): void {
    if (!this.hasRecord()) return;
    let after = "0";
    let at = 0;
    for (;;) {
      const rows = this.ask<{ id: string; line: string }>(
        "SELECT id::text AS id, line FROM record_lines WHERE id > $1::bigint ORDER BY record_lines.id LIMIT $2",
        [after, PAGE],
      );
      for (const row of rows) {
        const l = parsed(row.line);
        if (l) this.note(l);
        each(l, ++at);
      }
      if (rows.length < PAGE) return;
      after = (rows.at(-1) as { id: string }).id;
    }
  }

  private note(l: RecordLine): void {
    if (typeof l.seq === "number" && l.seq > (this.seen.get(l.session) ?? 0)) this.seen.set(l.session, l.seq);
    if (l.kind === "end") this.ended.add(l.session);
  }

  /**
   * The lines committed since the last look (`eachLine` or `fresh`), each session's in its order: what --follow
   * prints next. A session's lines are committed in order by its one server, so none is passed over.
   */
  fresh(): RecordLine[] {
    if (this.askedOrd === undefined && !this.hasRecord()) return [];
    const out: RecordLine[] = [];
    // Only the sessions that can have lines since: those started after the last ask, and those seen that have not
    // ended (a server's, or one whose server died). A record's history of ended sessions is not read at each look.
    const open = [...this.seen.keys()].filter((session) => !this.ended.has(session));
    const tips = this.ask<{ session: string; ord: string; last: string }>(
      `SELECT session, ord::text AS ord, last_seq::text AS last FROM record_sessions
       WHERE $1::bigint IS NULL OR ord > $1::bigint OR session IN (SELECT jsonb_array_elements_text($2::text::jsonb))
       ORDER BY record_sessions.ord`,
      [this.askedOrd ?? null, JSON.stringify(open)],
    );
    for (const tip of tips) {
      if (this.askedOrd === undefined || BigInt(tip.ord) > BigInt(this.askedOrd)) this.askedOrd = tip.ord;
      const from = this.seen.get(tip.session) ?? 0;
      // asked again while it has not ended, even were none of its lines one to hand on
      if (from === 0) this.seen.set(tip.session, 0);
      if (Number(tip.last) <= from) continue;
      const rows = this.ask<{ line: string }>(
        "SELECT line FROM record_lines WHERE session = $1 AND seq > $2::bigint ORDER BY seq",
        [tip.session, from],
      );
      for (const row of rows) {
        const l = parsed(row.line);
        if (!l) continue;
        this.note(l);
        out.push(l);
      }
    }
    return out;
  }

  /** The store's record checked against its key, each session's checkpoint and the chain of session starts. */
  verify(): Verdict {
    const verdict: Verdict = { sessions: 0, lines: 0, problems: [], open: [], unkeyed: 0 };
    if (!this.hasRecord()) {
      // a store made before the record's tables has none; one whose schema made them and has them no more lost them
      if (this.schemaVersion() >= RECORD_VERSION)
        verdict.problems.push({
          kind: "replaced",
          session: "",
          line: 0,
          what: `the store's schema is at version ${RECORD_VERSION} or later, which made the record's tables, and they are gone: no line can be proved`,
        });
      return verdict;
    }
    const [keyRow] = this.ask<{ key: string }>("SELECT key FROM record_key WHERE id = 1");
    const [head] = this.ask<{ sessions: string; mac: string }>(
      "SELECT sessions::text AS sessions, mac FROM record_head WHERE id = 1",
    );
    const problems = verdict.problems;
    const say = (kind: Problem["kind"], session: string, line: number, what: string) =>
      problems.push({ kind, session, line, what });
    if (!keyRow || !/^[0-9a-f]{64}$/.test(keyRow.key) || !head) {
      say("replaced", "", 0, "the store holds no record key or no head of its sessions' chain: no line can be proved");
      return verdict;
    }
    const key = Buffer.from(keyRow.key, "hex");
    const sessions = this.ask<{ session: string; ord: string; prev_mac: string; last_seq: string; last_mac: string }>(
      "SELECT session, ord::text AS ord, prev_mac, last_seq::text AS last_seq, last_mac FROM record_sessions ORDER BY record_sessions.ord",
    );
    const walk = new SessionWalk(key, verdict, say);
    let ord = 0;
    let startMac: string | undefined = "";
    for (const s of sessions) {
      // after a session whose first line is gone, this one is checked against what its row says it followed
      startMac ??= s.prev_mac;
      ord += 1;
      if (Number(s.ord) !== ord) {
        say("cut-session", s.session, walk.at + 1, `sessions ${ord} to ${Number(s.ord) - 1} of the store are missing`);
        ord = Number(s.ord);
      }
      startMac = walk.session(s, startMac, (after) =>
        this.ask<{ seq: string; line: string }>(
          "SELECT seq::text AS seq, line FROM record_lines WHERE session = $1 AND seq > $2::bigint ORDER BY record_lines.seq LIMIT $3",
          [s.session, after, PAGE],
        ),
      );
    }
    // Lines whose session has no row: their session was taken out of the chain of starts.
    const [orphans] = this.ask<{ n: string }>(
      "SELECT count(*)::text AS n FROM record_lines l WHERE NOT EXISTS (SELECT 1 FROM record_sessions s WHERE s.session = l.session)",
    );
    if (Number(orphans?.n) > 0)
      say("cut-session", "", 0, `${orphans?.n} line(s) belong to no session in the store's chain of sessions`);
    if (Number(head.sessions) !== ord || head.mac !== startMac)
      say(
        "cut-session",
        "",
        0,
        Number(head.sessions) > ord
          ? `the store's chain of sessions ends at session ${head.sessions}, but ${ord} are left: the last were cut out`
          : "the store's chain of sessions does not end where its head says: a session was cut out or its first line replaced",
      );
    return verdict;
  }
}

/** One session's lines checked in order; the session's first line's mac is what the next session starts from. */
class SessionWalk {
  /** lines walked so far, across sessions */
  at = 0;

  constructor(
    private readonly key: Buffer,
    private readonly verdict: Verdict,
    private readonly say: (kind: Problem["kind"], session: string, line: number, what: string) => void,
  ) {}

  session(
    s: { session: string; prev_mac: string; last_seq: string; last_mac: string },
    startMac: string,
    page: (after: string) => { seq: string; line: string }[],
  ): string | undefined {
    const { key, say } = this;
    this.verdict.sessions += 1;
    const id = s.session;
    let prev: { seq: number; mac: string } = { seq: 0, mac: startMac };
    let first: string | undefined;
    let ended = false;
    let after = "0";
    for (;;) {
      const rows = page(after);
      for (const row of rows) {
        const at = ++this.at;
        this.verdict.lines += 1;
        const seq = Number(row.seq);
        const l = parsed(row.line);
        if (!l || JSON.stringify(l) !== row.line || typeof l.mac !== "string") {
          say("forged", id, at, "is not a record line as rta writes one");
          prev = { seq, mac: "" };
          continue;
        }
        if (l.session !== id || l.seq !== seq || l.n !== seq) {
          say("reordered", id, at, `holds line ${l.seq} of session ${l.session} in the place of line ${seq} of ${id}`);
          prev = { seq, mac: l.mac };
          continue;
        }
        if (ended) say("reordered", id, at, "comes after its session's end line");
        if (seq !== prev.seq + 1)
          say("cut-inside", id, at, `lines ${prev.seq + 1} to ${seq - 1} of the session are missing`);
        else if (seq === 1 && chainMac(key, startMac, l) !== l.mac) {
          // its mac against the session it named when written tells a cut session from an altered line
          if (chainMac(key, s.prev_mac, l) === l.mac)
            say("cut-session", id, at, "the session that started before this one is not in the store: it was cut out");
          else say("forged", id, at, "does not match its chain under the key: it was altered or made up");
        } else if (seq > 1 && chainMac(key, prev.mac, l) !== l.mac)
          say("forged", id, at, "does not match its chain under the key: it was altered or made up");
        if (seq === 1) first = l.mac;
        if (l.kind === "end") ended = true;
        prev = { seq, mac: l.mac };
      }
      if (rows.length < PAGE) break;
      after = (rows.at(-1) as { seq: string }).seq;
    }
    const last = Number(s.last_seq);
    // rta adds a session's row in the statement that adds its first line: a row with no line had them all cut out,
    // its checkpoint moved back to before the first, which nothing else here would show
    if (first === undefined && prev.seq === 0)
      say(
        "cut-session",
        id,
        this.at,
        "the session holds no line, though its row is written with its first: its lines were cut out",
      );
    else if (prev.seq < last)
      say("cut-tail", id, this.at, `the session's checkpoint is at line ${last}, its lines end at ${prev.seq}`);
    else if (prev.seq > last) say("forged", id, this.at, `lines past the session's checkpoint (line ${last})`);
    else if (prev.mac !== s.last_mac)
      say("replaced", id, this.at, "the session's checkpoint holds another line than its last");
    // A session with no end line: its server still runs, or was stopped without one (killed); its checkpoint
    // proves no line of it was cut, so it is open, not broken.
    if (!ended && last > 0) this.verdict.open.push(id);
    // the next session's first line chained to this one's
    return first;
  }
}
