/**
 * Subscriptions across replicas in process, against a real PostgreSQL (test/support/pg.ts): two replicas' shared
 * watching on one store, on one clock the test moves, each beat and look called by hand (the timers' work). A change
 * seen by the lease holder reaches the other replica's subscriber through NOTIFY; a holder that stalled past its
 * lease is superseded, and stops watching once its told change or its renewal is refused, and the change is told
 * once, by the new holder.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { builtins } from "../../src/capabilities/builtins.ts";
import type { AgentOrigin } from "../../src/core/call.ts";
import { EMPTY_CONFIG } from "../../src/core/config.ts";
import { agentLimits } from "../../src/gate/bound.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { LEASE_MS } from "../../src/gate/store/pgLeases.ts";
import { PgGateStore } from "../../src/gate/store/pgStore.ts";
import { toolListings } from "../../src/mcp/describe.ts";
import { SharedWatching } from "../../src/mcp/leases.ts";
import { Listening } from "../../src/mcp/leasesListen.ts";
import { Subscriptions } from "../../src/mcp/subscriptions.ts";
import { readTemplates } from "../../src/mcp/templates.ts";
import { fixedClock, tempDir, testDeps } from "../support/fixtures.ts";
import { pgServer } from "../support/pg.ts";
import { catalogueOf } from "../support/validators.ts";

const pg = await pgServer();
const claude: AgentOrigin = { kind: "agent", name: "claude", client: "test", session: "s", transport: "http" };
const catalogue = catalogueOf(builtins);
const URI = "rta://fs/read/notes.txt";
const opened: { close(): unknown }[] = [];

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

/** Two replicas on a fresh store, reading one root on one clock. */
async function replicas() {
  const url = await (pg?.freshDb() as Promise<string>);
  new PgGateStore(url).close();
  const root = tempDir();
  writeFileSync(join(root, "notes.txt"), "one\n");
  const base = testDeps();
  const clock = fixedClock(1_800_000_000_000);
  const deps = { ...base, clock, roots: new PathGate([root], base.roots.rules) };
  const tools = toolListings(catalogue, EMPTY_CONFIG, (t) => t);
  const place = { deps, catalogue, limits: agentLimits(), reads: () => readTemplates(catalogue, tools) };
  const start = async (session: string) => {
    const shared = await SharedWatching.start(url, place, session, false);
    opened.push(shared);
    return shared;
  };
  const [a, b] = [await start("a"), await start("b")];
  /** A connection on `shared`, subscribed through it, and what it is told. */
  const connection = async (shared: SharedWatching, origin = claude) => {
    const subs = new Subscriptions(() => clock.now());
    subs.use(shared.watch(place, (uri) => subs.tell(uri)));
    opened.push(subs);
    const told: string[] = [];
    subs.onUpdate((uri) => told.push(uri));
    await subs.subscribe(URI, origin);
    return told;
  };
  return { url, file: join(root, "notes.txt"), clock, a, b, connection };
}

/** Waits for `told` to hold `n` notices: NOTIFY comes back on its own connection (bounded by the test's limit). */
async function until(told: string[], n: number): Promise<string[]> {
  while (told.length < n) await Bun.sleep(10);
  return told;
}

describe.skipIf(pg === null)("shared watching across replicas", () => {
  test("the holder's change reaches the other replica's subscriber; a superseded holder's tell is refused", async () => {
    const { file, clock, a, b, connection } = await replicas();
    const onB = await connection(b);
    const onA = await connection(a);
    expect([a.running, b.running]).toEqual([0, 1]);
    clock.set(clock.now() + 250);
    appendFileSync(file, "two\n");
    await b.look();
    expect(await until(onA, 1)).toEqual([URI]);
    expect(await until(onB, 1)).toEqual([URI]);

    // B stalls past its lease: A's sweep claims it, reads it at once, and finds nothing new to tell
    clock.set(clock.now() + LEASE_MS);
    await a.beat();
    await a.idle();
    expect([a.running, b.running]).toEqual([1, 1]);
    // B comes back and sees the next change first: its tell is refused, and it stops watching
    appendFileSync(file, "three\n");
    clock.set(clock.now() + 250);
    await b.look();
    expect(b.running).toBe(0);
    // A, the current holder, tells it: once
    await a.look();
    expect(await until(onA, 2)).toEqual([URI, URI]);
    expect(await until(onB, 2)).toEqual([URI, URI]);
  });

  test("a superseded holder's renewal is refused, and it stops watching", async () => {
    const { clock, a, b, connection } = await replicas();
    await connection(b);
    await connection(a);
    clock.set(clock.now() + LEASE_MS);
    await a.beat();
    await a.idle();
    expect(a.running).toBe(1);
    await b.beat();
    expect(b.running).toBe(0);
  });

  test("a replica that stops drops its subscriptions and gives its leases up to the other at once", async () => {
    const { file, clock, a, b, connection } = await replicas();
    await connection(b);
    const onA = await connection(a);
    await b.close();
    await a.beat();
    await a.idle();
    expect(a.running).toBe(1);
    appendFileSync(file, "two\n");
    clock.set(clock.now() + 250);
    await a.look();
    expect(await until(onA, 1)).toEqual([URI]);
  });

  test("a client whose reported name holds a NUL (which PostgreSQL's text cannot) is subscribed and told", async () => {
    const { file, clock, a, connection } = await replicas();
    const told = await connection(a, { ...claude, client: "odd\u0000client 1" });
    appendFileSync(file, "two\n");
    clock.set(clock.now() + 250);
    await a.look();
    expect(await until(told, 1)).toEqual([URI]);
  });

  test("its LISTEN connection dropped and made again, each subscription held here is told it may have changed", async () => {
    const { url, connection, a } = await replicas();
    const told = await connection(a);
    const admin = new SQL(url, { max: 1 });
    opened.push(admin);
    const ended = await admin.unsafe(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
    );
    expect(ended.length).toBeGreaterThan(0);
    expect(await until(told, 1)).toEqual([URI]);
  });

  test("a LISTEN not made again by the time the store answers is made anew, and its subscribers hinted", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    let hinted = 0;
    const listening = await Listening.start(
      url,
      () => {},
      () => hinted++,
    );
    opened.push(listening);
    await listening.back(); // never lost: nothing
    expect(hinted).toBe(0);
    listening.lost();
    await listening.back();
    expect(hinted).toBe(1);
    await listening.back(); // found again: nothing more
    expect(hinted).toBe(1);
  });
});
