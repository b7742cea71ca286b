/**
 * PostgreSQL answered synchronously, as bun:sqlite answers gate.db: the gate's
 * stages ask the store without awaiting (a lock check, a spend, a token), so a
 * worker thread holds the connection (Bun.SQL, Bun's built-in client) and this
 * thread waits on a shared buffer (Atomics.wait) for each answer. The call
 * blocks its server for one round trip, as a gate.db write does for its
 * commit. The worker is one source string (no file to ship beside the
 * compiled binary). An answer larger than the buffer is fetched again into
 * one that fits. A server that does not answer within the wait is a plain
 * Error here, said again at once for a while after (SLOW_FAILURE_MS); pgStore.ts says it as core.store.unavailable.
 */

/** What the worker runs: one statement, several in one transaction, or the migrations under their lock. */
export type PgRequest =
  | { op: "query"; text: string; params: unknown[] }
  | { op: "tx"; statements: [string, unknown[]][] }
  | { op: "migrate"; lock: number; migrations: readonly string[] };

/**
 * What every connection of the bridge is set to before its first statement (each new one too: the client connects
 * again after an idle minute or a lost connection). Each statement is prepared once per connection (Bun.SQL names
 * and keeps one per text); planned generic, it is never planned again, where PostgreSQL's own choice can settle,
 * from the table's statistics at its first five runs, on planning every spend anew (a tenth of a millisecond or
 * more, as long as the connection lasts). Every statement here finds its rows by an index on its parameters, which
 * a generic plan uses as well. It is a SET, not a startup parameter, which a pooler in front (PgBouncer) would
 * refuse; a server older than PostgreSQL 12, which does not know it, plans as it chooses.
 */
const SET_UP = "SET plan_cache_mode = force_generic_plan";

/**
 * The worker: runs each request and writes its answer, as JSON, into the buffer it was last sent (a message carries
 * one only when it is new: the first, and after a larger one was made), with one encoder for every answer.
 */
const WORKER = `
let sql, sab, ctl, bytes;
let fresh = true;
async function setUp() {
  try {
    await sql.unsafe(${JSON.stringify(SET_UP)});
  } catch (err) {
    if (!String(err && err.message).includes("plan_cache_mode")) throw err;
  }
  fresh = false;
}
const kept = new Map();
const encoder = new TextEncoder();
function answer(text) {
  const put = encoder.encodeInto(text, bytes);
  const n = put.read < text.length ? encoder.encode(text).length : put.written;
  Atomics.store(ctl, 1, n);
  Atomics.store(ctl, 0, 1);
  Atomics.notify(ctl, 0);
  return n;
}
async function run(r) {
  if (r.op === "query") return [...(await sql.unsafe(r.text, r.params))];
  if (r.op === "tx") return await sql.begin(async (tx) => {
    const out = [];
    for (const [text, params] of r.statements) out.push([...(await tx.unsafe(text, params))]);
    return out;
  });
  return await sql.begin(async (tx) => {
    await tx.unsafe("SELECT pg_advisory_xact_lock(" + r.lock + ")");
    await tx.unsafe("CREATE TABLE IF NOT EXISTS rta_schema (version int PRIMARY KEY, applied_at timestamptz NOT NULL)");
    const [row] = await tx.unsafe("SELECT coalesce(max(version), 0)::int AS v FROM rta_schema");
    const at = Number(row.v);
    if (at > r.migrations.length) return { newer: at };
    for (let v = at + 1; v <= r.migrations.length; v++) {
      await tx.unsafe(r.migrations[v - 1]);
      await tx.unsafe("INSERT INTO rta_schema (version, applied_at) VALUES (" + v + ", now())");
    }
    return { at: r.migrations.length, ran: r.migrations.length - at };
  });
}
self.onmessage = async (e) => {
  const m = e.data;
  if (m.sab) [sab, ctl, bytes] = [m.sab, new Int32Array(m.sab, 0, 2), new Uint8Array(m.sab, 8)];
  if (m.again !== undefined) { answer(kept.get(m.again) ?? "null"); kept.delete(m.again); return; }
  if (m.close) { await sql?.close().catch(() => {}); answer("{}"); return; }
  let text;
  try {
    sql ??= new Bun.SQL(m.url, {
      max: 1, idleTimeout: 60, connectionTimeout: 10, connection: { application_name: "rta" },
      onclose: () => { fresh = true; },
    });
    if (fresh) await setUp();
    text = JSON.stringify({ ok: await run(m.request) }, (k, v) => (typeof v === "bigint" ? String(v) : v));
  } catch (err) {
    text = JSON.stringify({ err: String((err && err.message) || err) });
  }
  if (answer(text) > bytes.length) kept.set(m.id, text);
};`;

/** How long a request may wait for its answer (the connection's own timeout is 10 s). */
const WAIT_MS = 15_000;
/**
 * A failure that took this long (a server that does not answer, a connection that timed out) is said again at once,
 * for WAIT_MS, to every request after it: this thread waits on each one, so a server that hangs would otherwise hold
 * the whole process (every call, the operator channel, a lock) up for seconds per request, one after another.
 */
const SLOW_FAILURE_MS = 2_000;
/** The buffer an answer is written to; a larger one is made for an answer that does not fit. */
const BUFFER_BYTES = 1 << 20;

export class SyncPg {
  private worker: Worker | undefined;
  private sab = new SharedArrayBuffer(8 + BUFFER_BYTES);
  /** whether the worker holds this.sab: else the next message carries it */
  private sabSent = false;
  private readonly decoder = new TextDecoder();
  private next = 0;
  /** the last slow failure and until when it is said again without asking the server */
  private stalled: { why: string; until: number } | undefined;

  constructor(private readonly url: string) {}

  /** One statement's rows; throws (a plain Error) what the server or the wait refused. */
  query<T = Record<string, unknown>>(text: string, params: unknown[] = []): T[] {
    return this.request({ op: "query", text, params }) as T[];
  }

  /** Each statement's rows, run in one transaction: all or none. */
  transaction(statements: [string, unknown[]][]): Record<string, unknown>[][] {
    return this.request({ op: "tx", statements }) as Record<string, unknown>[][];
  }

  /** Runs the migrations the database lacks under the advisory lock; says the version found when newer. */
  migrate(lock: number, migrations: readonly string[]): { at: number; ran: number } | { newer: number } {
    return this.request({ op: "migrate", lock, migrations }) as { at: number; ran: number } | { newer: number };
  }

  /** Closes the connection and ends the worker. */
  close(): void {
    if (!this.worker) return;
    try {
      this.post({ close: true });
    } catch {
      // a worker that does not answer is ended all the same
    }
    this.worker.terminate();
    this.worker = undefined;
  }

  private request(request: PgRequest): unknown {
    const started = Date.now();
    if (this.stalled !== undefined && started < this.stalled.until)
      throw new Error(`${this.stalled.why} (a moment ago; not asked again until it has had time to recover)`);
    this.stalled = undefined;
    try {
      return this.asked(request);
    } catch (err) {
      const now = Date.now();
      if (now - started >= SLOW_FAILURE_MS) this.stalled = { why: (err as Error).message, until: now + WAIT_MS };
      throw err;
    }
  }

  private asked(request: PgRequest): unknown {
    this.next += 1;
    const id = this.next;
    let text = this.post({ url: this.url, request, id });
    if (text === undefined) {
      // the answer did not fit: a buffer its size, and the answer sent again
      const size = Atomics.load(new Int32Array(this.sab, 0, 2), 1);
      this.sab = new SharedArrayBuffer(8 + size);
      this.sabSent = false;
      text = this.post({ again: id }) as string;
    }
    const said = JSON.parse(text) as { ok?: unknown; err?: string };
    if (said.err !== undefined) throw new Error(said.err);
    return said.ok;
  }

  /**
   * Sends one message and waits for its answer; undefined when it did not fit the buffer. The buffer goes with the
   * message only when the worker does not hold it yet: a shared buffer sent is a handle made again on the other side.
   */
  private post(message: Record<string, unknown>): string | undefined {
    if (!this.worker) {
      this.worker = new Worker(URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" })));
      // this thread waits on it only while it asks: the worker alone never keeps a finished command running
      this.worker.unref();
      this.sabSent = false;
    }
    const sab = this.sab;
    const ctl = new Int32Array(sab, 0, 2);
    Atomics.store(ctl, 0, 0);
    this.worker.postMessage(this.sabSent ? message : { ...message, sab });
    this.sabSent = true;
    if (Atomics.wait(ctl, 0, 0, WAIT_MS) === "timed-out") {
      // the worker may still be waiting on the server: end it, so a late answer writes nowhere
      this.worker.terminate();
      this.worker = undefined;
      throw new Error(`no answer within ${WAIT_MS / 1000} s`);
    }
    const n = Atomics.load(ctl, 1);
    if (n > sab.byteLength - 8) return undefined;
    return this.decoder.decode(new Uint8Array(sab, 8, n).slice());
  }
}
