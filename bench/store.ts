/**
 * The gate's store on SQLite (gate.db) against PostgreSQL, in one run: the
 * grant check plus spend, and the per-call lock check (PostgreSQL: the change
 * counter read), each timed one call at a time over 2,000 calls with 10,000
 * grants in each store, in rounds interleaved SQLite, PostgreSQL, ... (every
 * other call in the opposite order) so the machine's noise falls on both.
 * Prints the median of the round medians. Target: spend <= 1 ms median on
 * PostgreSQL.
 *
 * Then the record's append, the file record (agent-log.jsonl, its checkpoint
 * under gate.db's lock) against the PostgreSQL record (pgRecord.ts, lines of
 * concurrent calls committed in one statement a batch), in rounds interleaved
 * file, PostgreSQL: one append at a time awaited (the latency a call sees),
 * and APPENDERS appenders at once, each awaiting its line before the next
 * (appends a second). After each concurrent run the store is counted: every
 * append that resolved must be a row (nothing acknowledged lost).
 * Target: >= 5,000 appends/s on PostgreSQL.
 *
 * `bun bench/store.ts postgres://user@127.0.0.1:5432/postgres` (or RTA_TEST_PG):
 * a server on which the user may create a database; the bench makes its own
 * and drops it at the end. Measure on a server with fsync and
 * synchronous_commit on, as a team's is: a spend is a commit.
 *
 * `--before <tree>`: a directory holding an earlier rta's src/ (e.g. `git
 * archive main src | tar -x -C <tree>`, with node_modules beside it); its
 * PostgreSQL store is timed too, in its own database, interleaved with this
 * one's, as "pg spend before" and "pg lock before".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SQL } from "bun";
import { GateStore } from "../src/gate/gateStore.ts";
import type { GrantQuery, NewGrant } from "../src/gate/store/grants.ts";
import { PgRecord } from "../src/gate/store/pgRecord.ts";
import { PgGateStore } from "../src/gate/store/pgStore.ts";
import { FileRecord, type RecordEntry, type RecordSink } from "../src/record/append.ts";
import { recordKey } from "../src/record/key.ts";
import { benchGrant } from "./grantRow.ts";
import { median } from "./measure.ts";

const argv = process.argv.slice(2);
const beforeAt = argv.indexOf("--before");
const beforeTree = beforeAt >= 0 ? argv.splice(beforeAt, 2)[1] : undefined;
const server = argv[0] ?? process.env.RTA_TEST_PG;
if (!server || (beforeAt >= 0 && !beforeTree)) {
  process.stderr.write(
    "usage: bun bench/store.ts [--before <tree>] postgres://user@127.0.0.1:5432/postgres (or set RTA_TEST_PG)\n",
  );
  process.exit(2);
}
/** The store of the tree --before names, as that rta built it. */
type BeforeStore = Pick<PgGateStore, "issue" | "lock" | "spend" | "lockFor" | "close">;
const BeforeStoreClass: (new (url: string) => BeforeStore) | undefined = beforeTree
  ? (await import(resolve(beforeTree, "src/gate/store/pgStore.ts"))).PgGateStore
  : undefined;
const ROUNDS = 5;
const CALLS = 2000;
const GRANTS = 10_000;

const now = Date.now();
function grant(i: number): NewGrant {
  const targets = ["proc.kill", "fs.write", "fs", "proc"];
  return benchGrant(
    {
      target: targets[i % targets.length] as string,
      record: i % 3 === 0 ? `rec-${i}` : null,
      agent: `agent-${i % 200}`,
    },
    now,
  );
}
const q: GrantQuery = {
  targets: ["fs.write", "fs"],
  agent: "agent-2",
  record: null,
  connection: null,
  profile: null,
  host: null,
  hostRequired: false,
  args_digest: "d",
  digest: null,
  now: now + 1,
};

const dir = mkdtempSync(join(tmpdir(), "rta-bench-store-"));
const admin = new SQL(server, { max: 1 });
const dbName = `rta_bench_${process.pid}`;
const dbNames = BeforeStoreClass ? [dbName, `${dbName}_before`] : [dbName];
for (const name of dbNames) await admin.unsafe(`CREATE DATABASE ${name}`);
/** The URL of database `name` on the server. */
function dbUrl(name: string): string {
  const u = new URL(server as string);
  u.pathname = `/${name}`;
  return u.toString();
}
try {
  const lite = new GateStore(join(dir, "gate.db"));
  const pg = new PgGateStore(dbUrl(dbName));
  const before = BeforeStoreClass ? new BeforeStoreClass(dbUrl(`${dbName}_before`)) : undefined;
  for (const store of [lite, pg, ...(before ? [before] : [])]) {
    for (let i = 0; i < GRANTS; i++) store.issue(grant(i));
    store.lock({ agent: "agent-9", target: "proc", issued_at: now, expires_at: null, issued_by: "bench" });
  }

  // each row: its name, what it times, and whether it spends (a spend that finds no grant is a broken bench)
  const rows: [string, () => unknown, boolean][] = [
    ["sqlite spend", () => lite.spend(q), true],
    ["pg spend", () => pg.spend(q), true],
    ...(before ? ([["pg spend before", () => before.spend(q), true]] as [string, () => unknown, boolean][]) : []),
    ["sqlite lock", () => lite.lockFor("agent-2", q.targets, now), false],
    ["pg lock", () => pg.lockFor("agent-2", q.targets, now), false],
    ...(before
      ? ([["pg lock before", () => before.lockFor("agent-2", q.targets, now), false]] as [
          string,
          () => unknown,
          boolean,
        ][])
      : []),
  ];
  const times = new Map<string, number[]>(rows.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const per = new Map<string, number[]>(rows.map(([name]) => [name, []]));
    // every other call in the opposite order, so no store always follows the same one
    for (let i = 0; i < CALLS; i++)
      for (const [name, work, spends] of i % 2 === 0 ? rows : [...rows].reverse()) {
        const t = performance.now();
        if (!work() && spends) throw new Error(`no grant spent (${name})`);
        per.get(name)?.push(performance.now() - t);
      }
    for (const [name, v] of per) times.get(name)?.push(median(v));
  }
  for (const [k, v] of times)
    console.log(`${k.padEnd(16)} median ${median(v).toFixed(3)} ms  (rounds: ${v.map((x) => x.toFixed(3)).join(" ")})`);
  lite.close();
  pg.close();
  before?.close();
  await records(dbUrl(dbName));
} finally {
  for (const name of dbNames) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
}

async function records(url: string): Promise<void> {
  const APPENDERS = 64;
  const EACH = 100;
  const SINGLE = 1000;
  const recDir = mkdtempSync(join(tmpdir(), "rta-bench-record-"));
  const gate = new GateStore(join(recDir, "gate.db"));
  const file = new FileRecord(join(recDir, "agent-log.jsonl"), {
    key: () => recordKey(recDir),
    checkpoints: () => gate,
  });
  const store = new PgRecord(url);
  const count = new SQL(url, { max: 1 });
  const entry = (session: string, i: number): RecordEntry => ({
    time: new Date().toISOString(),
    session,
    agent: "bench",
    client: "bench 1",
    transport: "http",
    capability: "fs_write",
    outcome: "ok",
    duration_ms: i % 7,
    args: ["path", "content"],
  });
  const single = async (sink: RecordSink, session: string): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < SINGLE; i++) {
      const t = performance.now();
      const p = sink.append(entry(session, i));
      if (p) await p;
      times.push(performance.now() - t);
    }
    return median(times) * 1000;
  };
  const concurrent = async (sink: RecordSink, session: string): Promise<{ rate: number; acked: number }> => {
    let acked = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: APPENDERS }, async () => {
        for (let i = 0; i < EACH; i++) {
          const p = sink.append(entry(session, i));
          if (p) await p;
          acked++;
        }
      }),
    );
    return { rate: (APPENDERS * EACH) / ((performance.now() - t) / 1000), acked };
  };
  const got: Record<string, number[]> = { "file µs": [], "pg µs": [], "file /s": [], "pg /s": [] };
  let lost = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const session = `bench${round}`;
    got["file µs"]?.push(await single(file, session));
    got["pg µs"]?.push(await single(store, session));
    got["file /s"]?.push((await concurrent(file, session)).rate);
    const before = Number((await count.unsafe("SELECT count(*)::text AS n FROM record_lines"))[0].n);
    const run = await concurrent(store, session);
    const after = Number((await count.unsafe("SELECT count(*)::text AS n FROM record_lines"))[0].n);
    lost += run.acked - (after - before);
    got["pg /s"]?.push(run.rate);
  }
  const fmtRounds = (v: number[]) => v.map((x) => x.toFixed(0)).join(" ");
  for (const k of ["file µs", "pg µs"])
    console.log(
      `append ${k.replace(" µs", "").padEnd(5)} one at a time: median ${median(got[k] ?? []).toFixed(1)} µs (rounds: ${fmtRounds(got[k] ?? [])})`,
    );
  for (const k of ["file /s", "pg /s"])
    console.log(
      `append ${k.replace(" /s", "").padEnd(5)} ${APPENDERS} at once: median ${median(got[k] ?? []).toFixed(0)} appends/s (rounds: ${fmtRounds(got[k] ?? [])})`,
    );
  console.log(`acknowledged appends missing from the store: ${lost}`);
  await store.close();
  await count.close();
  file.close();
  gate.close();
  rmSync(recDir, { recursive: true, force: true });
}
