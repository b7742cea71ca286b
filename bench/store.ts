/**
 * The gate's store on SQLite (gate.db) against PostgreSQL, in one run: the
 * grant check plus spend, and the per-call lock check (PostgreSQL: the change
 * counter read), each timed one call at a time over 2,000 calls with 10,000
 * grants in each store, in rounds interleaved SQLite, PostgreSQL, ... so the
 * machine's noise falls on both. Prints the median of the round medians.
 * Target: spend <= 1 ms median on PostgreSQL.
 *
 * `bun bench/store.ts postgres://user@127.0.0.1:5432/postgres` (or RTA_TEST_PG):
 * a server on which the user may create a database; the bench makes its own
 * and drops it at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { GateStore } from "../src/gate/gateStore.ts";
import type { GrantQuery, NewGrant } from "../src/gate/store/grants.ts";
import { PgGateStore } from "../src/gate/store/pgStore.ts";
import { benchGrant } from "./grantRow.ts";
import { median } from "./measure.ts";

const server = process.argv[2] ?? process.env.RTA_TEST_PG;
if (!server) {
  process.stderr.write("usage: bun bench/store.ts postgres://user@127.0.0.1:5432/postgres (or set RTA_TEST_PG)\n");
  process.exit(2);
}
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
await admin.unsafe(`CREATE DATABASE ${dbName}`);
const u = new URL(server);
u.pathname = `/${dbName}`;
try {
  const lite = new GateStore(join(dir, "gate.db"));
  const pg = new PgGateStore(u.toString());
  for (let i = 0; i < GRANTS; i++) lite.issue(grant(i));
  for (let i = 0; i < GRANTS; i++) pg.issue(grant(i));
  lite.lock({ agent: "agent-9", target: "proc", issued_at: now, expires_at: null, issued_by: "bench" });
  pg.lock({ agent: "agent-9", target: "proc", issued_at: now, expires_at: null, issued_by: "bench" });

  const times: Record<string, number[]> = { "sqlite spend": [], "pg spend": [], "sqlite lock": [], "pg lock": [] };
  for (let round = 0; round < ROUNDS; round++) {
    const per: Record<string, number[]> = { "sqlite spend": [], "pg spend": [], "sqlite lock": [], "pg lock": [] };
    for (let i = 0; i < CALLS; i++) {
      let t = performance.now();
      if (!lite.spend(q)) throw new Error("no grant spent on SQLite");
      per["sqlite spend"]?.push(performance.now() - t);
      t = performance.now();
      if (!pg.spend(q)) throw new Error("no grant spent on PostgreSQL");
      per["pg spend"]?.push(performance.now() - t);
      t = performance.now();
      lite.lockFor("agent-2", q.targets, now);
      per["sqlite lock"]?.push(performance.now() - t);
      t = performance.now();
      pg.lockFor("agent-2", q.targets, now);
      per["pg lock"]?.push(performance.now() - t);
    }
    for (const [k, v] of Object.entries(per)) times[k]?.push(median(v));
  }
  for (const [k, v] of Object.entries(times))
    console.log(`${k.padEnd(14)} median ${median(v).toFixed(3)} ms  (rounds: ${v.map((x) => x.toFixed(3)).join(" ")})`);
  lite.close();
  pg.close();
} finally {
  await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName}`).catch(() => {});
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
}
