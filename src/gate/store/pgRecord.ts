/**
 * The record in PostgreSQL, for a server whose store is shared by replicas
 * (`--store postgres://…`). Each server process's session is its own chain:
 * a line's `n` is its place in its session (its `seq`), its mac chains it to
 * the session's line before it, and the session's first line is chained to the
 * first line of the session that started before it in the store, under
 * `record_head`'s row lock, so replicas contend for nothing but a session's
 * start. The line is spelled and sealed as the file record's (lineText.ts).
 *
 * Group commit: the lines of concurrent calls are committed together, one
 * statement a batch that inserts them and moves their session's checkpoint
 * (`record_sessions.last_seq` and `last_mac`), so the checkpoint never covers
 * less or more than what is committed. `append` resolves only once its
 * line's batch has committed, and rejects (core.record.unavailable) when it
 * did not: no call is answered before its line is in the store. A batch that
 * fails takes back nothing: its lines were never committed, and the session's
 * chain goes on from the last batch that was.
 */
import { SQL } from "bun";
import { RtaError } from "../../core/errors.ts";
import type { RecordEntry, RecordSink } from "../../record/line.ts";
import { sealLine } from "../../record/lineText.ts";
import { storeFailure } from "./pgSchema.ts";

/** At most this many lines in one statement: a batch past it goes in the next. */
const MAX_BATCH = 512;
/**
 * How long a batch's commit may take: as long as the gate waits for its own store (pgBridge.ts). A store that hangs
 * (a frozen network) would otherwise hold every call's answer for good. After one that timed out, the batches of
 * the next while are refused at once, the connection made anew, instead of each waiting its turn.
 */
const COMMIT_WAIT_MS = 15_000;
/** Ids a server tries for its session before it keeps one the store has (at 2^-32 a try, never in practice). */
const SESSION_TRIES = 8;

interface Pending {
  entry: RecordEntry;
  done: () => void;
  failed: (err: unknown) => void;
}

/** A session's last committed line: its seq and mac. */
interface Tip {
  seq: number;
  mac: string;
}

export interface PgRecordOptions {
  /** told of every batch that could not be committed, with why (the password taken out) */
  onFailure?: (err: unknown) => void;
}

/** The one statement a batch of a known session is: its lines in, and each session's checkpoint moved. */
const APPEND = `
WITH added AS (
  INSERT INTO record_lines (session, seq, line)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
  RETURNING 1
)
UPDATE record_sessions s SET last_seq = t.seq, last_mac = t.mac
FROM unnest($4::text[], $5::bigint[], $6::text[], $7::bigint[]) AS t(session, seq, mac, was)
WHERE s.session = t.session AND s.last_seq = t.was AND (SELECT count(*) FROM added) = cardinality($1::text[])
RETURNING s.session`;

/** The record sink of a PostgreSQL store: lines batched and committed before their calls are answered. */
export class PgRecord implements RecordSink {
  private sql: SQL | undefined;
  private key: Buffer | undefined;
  private queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  /** each session this process writes: its last committed line */
  private readonly tips = new Map<string, Tip>();
  private closed = false;
  /** after a commit that timed out: until when batches are refused at once, and why */
  private stalled: { until: number; why: string } | undefined;

  constructor(
    /** the store's URL, password included: never said */
    private readonly url: string,
    private readonly options: PgRecordOptions = {},
  ) {}

  /** Queues the line; resolves once its batch has committed, rejects with core.record.unavailable when not. */
  append(entry: RecordEntry): Promise<void> {
    if (this.closed) return Promise.reject(unavailable());
    return new Promise((done, failed) => {
      this.queue.push({ entry, done, failed });
      this.draining ??= this.drain();
    });
  }

  /**
   * `first`, or the first id `next` gives that no session in the store's record has: a server's session id is 32
   * random bits, which the sessions of a team's replicas and their restarts can meet, and a server whose id a past
   * session has would go on with that session's chain (its start after that session's end). A store that cannot be
   * asked keeps `first`: the server says so as it opens the store. Refuses nothing.
   */
  async freshSession(first: string, next: () => string): Promise<string> {
    try {
      const sql = this.connection();
      const [made] = await sql.unsafe("SELECT to_regclass('record_sessions') IS NOT NULL AS made");
      if (made?.made !== true) return first;
      for (let id = first, tries = 0; tries < SESSION_TRIES; id = next(), tries++) {
        const taken = await sql.unsafe("SELECT 1 FROM record_sessions WHERE session = $1", [id]);
        if (taken.length === 0) return id;
      }
    } catch {
      // said where the store is opened
    }
    return first;
  }

  /** Waits for the lines queued to be committed (or refused), then closes the connection. Refuses nothing. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.draining) await this.draining;
    await this.sql?.close().catch(() => {});
    this.sql = undefined;
  }

  /** Commits the queue a batch at a time: what arrives while one is in flight is the next. */
  private async drain(): Promise<void> {
    // the lines of calls that end in the same turn go together
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.withinWait(batch.map((p) => p.entry));
        for (const p of batch) p.done();
      } catch (err) {
        // A commit whose answer was lost may have gone through: its sessions' tips are read again from the store.
        for (const p of batch) this.tips.delete(p.entry.session);
        this.options.onFailure?.(storeFailure(this.url, err));
        for (const p of batch) p.failed(unavailable());
      }
    }
    this.draining = undefined;
  }

  /** Commits `entries` within COMMIT_WAIT_MS; a commit that does not answer in time leaves its connection behind. */
  private async withinWait(entries: RecordEntry[]): Promise<void> {
    const stalled = this.stalled;
    if (stalled && Date.now() < stalled.until)
      throw new Error(`${stalled.why} (a moment ago; not asked again until it has had time to recover)`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, refuse) => {
      timer = setTimeout(() => refuse(new Error(`no answer within ${COMMIT_WAIT_MS / 1000} s`)), COMMIT_WAIT_MS);
    });
    const committing = this.commit(entries);
    try {
      await Promise.race([committing, late]);
      this.stalled = undefined;
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("no answer within")) {
        committing.catch(() => {});
        this.stalled = { until: Date.now() + COMMIT_WAIT_MS, why: err.message };
        const hung = this.sql;
        this.sql = undefined;
        void hung?.close({ timeout: 0 }).catch(() => {});
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private connection(): SQL {
    this.sql ??= new SQL(this.url, { max: 1, idleTimeout: 60, connectionTimeout: 10 });
    return this.sql;
  }

  private async commit(entries: RecordEntry[]): Promise<void> {
    const sql = this.connection();
    if (this.key === undefined) {
      const [row] = await sql.unsafe("SELECT key FROM record_key WHERE id = 1");
      if (!row || !/^[0-9a-f]{64}$/.test(row.key)) throw new Error("the store holds no record key");
      this.key = Buffer.from(row.key, "hex");
    }
    const key = this.key;
    const unknown = [...new Set(entries.filter((e) => !this.tips.has(e.session)).map((e) => e.session))];
    if (unknown.length > 0) {
      // sessions this process has written before a failed batch: their tips as the store has them
      const rows = await sql.unsafe(
        "SELECT session, last_seq::text AS seq, last_mac FROM record_sessions WHERE session = ANY($1::text[])",
        [unknown],
      );
      for (const r of rows) this.tips.set(r.session, { seq: Number(r.seq), mac: String(r.last_mac) });
    }
    const fresh = entries.find((e) => !this.tips.has(e.session));
    if (fresh === undefined) {
      const sealed = this.seal(key, entries, new Map());
      const rows = await sql.unsafe(APPEND, sealed.params);
      if (rows.length !== sealed.tips.size) throw new Error("a session's checkpoint moved under this server");
      for (const [s, tip] of sealed.tips) this.tips.set(s, tip);
      return;
    }
    // A session's first line: chained to the last session's first line, under the head's row lock.
    const made = await sql.begin(async (tx) => {
      const [head] = await tx.unsafe("SELECT sessions::text AS sessions, mac FROM record_head WHERE id = 1 FOR UPDATE");
      if (!head) throw new Error("the store's record has no head");
      let ord = Number(head.sessions);
      let prev = String(head.mac);
      const starts = new Map<string, Tip>();
      const news: [string, number, string][] = [];
      for (const e of entries) {
        if (this.tips.has(e.session) || starts.has(e.session)) continue;
        ord += 1;
        news.push([e.session, ord, prev]);
        // the first line's mac is what the next session starts from: sealed below with the same prev
        starts.set(e.session, { seq: 0, mac: prev });
        prev = sealLine(key, e, 1, { n: 0, mac: prev }).mac;
      }
      for (const [session, at, prevMac] of news)
        await tx.unsafe(
          "INSERT INTO record_sessions (session, ord, prev_mac, last_seq, last_mac) VALUES ($1, $2::bigint, $3, 0, '')",
          [session, at, prevMac],
        );
      await tx.unsafe("UPDATE record_head SET sessions = $1::bigint, mac = $2 WHERE id = 1", [ord, prev]);
      const sealed = this.seal(key, entries, starts);
      const rows = await tx.unsafe(APPEND, sealed.params);
      if (rows.length !== sealed.tips.size) throw new Error("a session's checkpoint moved under this server");
      return sealed.tips;
    });
    for (const [s, tip] of made) this.tips.set(s, tip);
  }

  /**
   * The batch's lines sealed, each after its session's last (a new session's first line after `starts`' mac, with
   * seq 0 as its checkpoint was), and the statement's parameters: the lines, then each session's new tip and the
   * seq its checkpoint must still be at.
   */
  private seal(
    key: Buffer,
    entries: RecordEntry[],
    starts: Map<string, Tip>,
  ): { params: unknown[]; tips: Map<string, Tip> } {
    const tips = new Map<string, Tip>();
    const was = new Map<string, number>();
    const sessions: string[] = [];
    const seqs: number[] = [];
    const texts: string[] = [];
    for (const e of entries) {
      const last = tips.get(e.session) ?? this.tips.get(e.session) ?? starts.get(e.session);
      if (!last) throw new Error("a session with no first line");
      if (!was.has(e.session)) was.set(e.session, last.seq);
      const seq = last.seq + 1;
      const line = sealLine(key, e, seq, { n: last.seq, mac: last.mac });
      tips.set(e.session, { seq, mac: line.mac });
      sessions.push(e.session);
      seqs.push(seq);
      texts.push(line.text);
    }
    const tipSessions = [...tips.keys()];
    const params = [
      sessions,
      seqs,
      texts,
      tipSessions,
      tipSessions.map((s) => tips.get(s)?.seq),
      tipSessions.map((s) => tips.get(s)?.mac),
      tipSessions.map((s) => was.get(s)),
    ];
    return { params, tips };
  }
}

function unavailable(): RtaError {
  return new RtaError(
    "core.record.unavailable",
    "the record cannot be written",
    "a person must make the record writable again (the shared store reachable and writable)",
  );
}
