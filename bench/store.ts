/**
 * The gate's store on SQLite (gate.db) against PostgreSQL, in one run: the
 * grant check plus spend, and the per-call lock check (PostgreSQL: the change
 * counter read), each timed one call at a time over 2,000 calls with 10,000
 * grants in each store, in rounds interleaved SQLite, PostgreSQL, ... (every
 * other call in the opposite order) so the machine's noise falls on both.
 * Prints the median of the round medians. Target: spend <= 1 ms median on
 * PostgreSQL.
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
import { PgGateStore } from "../src/gate/store/pgStore.ts";
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
} finally {
  for (const name of dbNames) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
}
