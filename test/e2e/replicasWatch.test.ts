/**
 * End to end: resource subscriptions across two `rta mcp serve --http` replicas on one PostgreSQL store
 * (test/support/pg.ts). A file's watcher is leased to the replica where it was first subscribed; a client subscribed
 * through the other replica is told of each change through LISTEN/NOTIFY; when the lease holder stops (SIGTERM: it
 * gives its leases up) or dies (SIGKILL: its lease runs out after 15 s), the other replica claims the watcher with a
 * higher fencing token, and the client is told of a change made meanwhile and of the next. No wait is timed: each
 * is bounded only by the test's own limit.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import type { RunningHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { twoReplicas as replicas, sessionOf, updates } from "../support/replicas.ts";

const pg = await pgServer();
const URI = "rta://fs/read/notes.txt";

const running: RunningHttp[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const r of running.splice(0)) if (r.proc.exitCode === null && r.proc.signalCode === null) await r.stop();
});

/** A 2025-11-25 client of `srv` (a session, with its stream), and the URIs it is told changed, with a wait. */
async function subscriber(srv: RunningHttp, token: string) {
  const client = new Client({ name: "watch-e2e", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return { client, ...updates(client) };
}

/** The one watcher's owner (as its replica's session) and fencing token. */
async function lease(store: string): Promise<{ owner: string; fence: number }[]> {
  const sql = new SQL(store, { max: 1 });
  try {
    const rows = await sql.unsafe("SELECT owner, fence::int AS fence FROM watchers WHERE expires_at > 0");
    return [...rows].map((r: { owner: string; fence: number }) => ({
      owner: r.owner.split(" ").pop() as string,
      fence: r.fence,
    }));
  } finally {
    await sql.close();
  }
}

/** Two replicas on a fresh store, sharing one root with notes.txt in it, and an agent's token. */
async function twoReplicas() {
  return await replicas(await (pg?.freshDb() as Promise<string>), running);
}

describe.skipIf(pg === null)("resource subscriptions across two replicas on one PostgreSQL store", () => {
  test("told through the other replica; the holder killed, its lease is claimed with a higher fence after 15 s", async () => {
    const { store, file, a, b, token } = await twoReplicas();
    // subscribed through B first: B runs the watcher; then through A, which shares it
    const onB = await subscriber(b, token);
    await onB.client.subscribeResource({ uri: URI });
    const onA = await subscriber(a, token);
    await onA.client.subscribeResource({ uri: URI });
    const [held] = await lease(store);
    expect(held?.owner).toBe(sessionOf(b));

    appendFileSync(file, "two\n");
    expect(await onA.nth(1)).toBe(URI);
    expect(await onB.nth(1)).toBe(URI);

    b.proc.kill("SIGKILL");
    await b.proc.exited;
    // changed while no replica watches it: told once A claims the lease (it ran out 15 s after B's last renewal)
    appendFileSync(file, "three\n");
    expect(await onA.nth(2)).toBe(URI);
    const [taken] = await lease(store);
    expect(taken?.owner).toBe(sessionOf(a));
    expect(taken?.fence).toBeGreaterThan(held?.fence as number);
    // and A watches it from now on
    appendFileSync(file, "four\n");
    expect(await onA.nth(3)).toBe(URI);
    const read = await onA.client.readResource({ uri: URI });
    expect(JSON.stringify(read.contents)).toContain("four");
    expect(onA.told).toEqual([URI, URI, URI]);
  }, 60_000);

  test("the holder stopped gracefully gives its lease up: the other replica watches at once", async () => {
    const { store, file, a, b, token } = await twoReplicas();
    const onB = await subscriber(b, token);
    await onB.client.subscribeResource({ uri: URI });
    const onA = await subscriber(a, token);
    await onA.client.subscribeResource({ uri: URI });
    const [held] = await lease(store);
    expect(held?.owner).toBe(sessionOf(b));
    // B's client ends its session (a session's subscriptions outlive a replica stopping, for the replica its
    // stream moves to: replicasWatchMoves.test.ts), then B stops
    await (onB.client.transport as StreamableHTTPClientTransport).terminateSession();
    await onB.client.close();
    await b.stop();
    appendFileSync(file, "two\n");
    expect(await onA.nth(1)).toBe(URI);
    const [taken] = await lease(store);
    expect(taken?.owner).toBe(sessionOf(a));
    expect(taken?.fence).toBeGreaterThan(held?.fence as number);
    // unsubscribed, the last subscription gone: the watcher is dropped from the store
    // (the row goes just after the answer: looked for until it is gone, bounded by the test's limit)
    await onA.client.unsubscribeResource({ uri: URI });
    const sql = new SQL(store, { max: 1 });
    const count = async () => (await sql.unsafe("SELECT count(*)::int AS n FROM watchers"))[0].n as number;
    while ((await count()) > 0) await Bun.sleep(50);
    await sql.close();
    expect(await lease(store)).toEqual([]);
  }, 30_000);
});
