/**
 * The leases of subscriptions' watchers in PostgreSQL, against a real server (test/support/pg.ts), each replica its
 * own pool: a watcher claimed when subscribed, renewed while current, claimable once 15 s pass unrenewed, re-claimed
 * with a higher fencing token, after which the superseded holder's renewal and its told change are refused (and
 * NOTIFY nothing); two replicas claiming at once never both win; a subscription whose replica stopped holding it is
 * dropped, and with the last one its watcher.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { CHANNEL, LEASE_MS, PgLeases, watcherId } from "../../../src/gate/store/pgLeases.ts";
import { PgGateStore } from "../../../src/gate/store/pgStore.ts";
import { pgServer } from "../../support/pg.ts";

const pg = await pgServer();
const NOW = 1_800_000_000_000;
const pools: SQL[] = [];

afterEach(async () => {
  for (const p of pools.splice(0)) await p.close().catch(() => {});
});

/** A fresh database at the newest schema. */
async function freshStore(): Promise<string> {
  const url = await (pg?.freshDb() as Promise<string>);
  new PgGateStore(url).close();
  return url;
}

/** A replica's lease store, on a pool of its own. */
function replica(url: string, owner: string): PgLeases {
  const sql = new SQL(url, { max: 2 });
  pools.push(sql);
  return new PgLeases(sql, owner);
}

const wanted = (uri = "rta://fs/read/notes.txt") => ({ agent: "claude", uri, client: "test 1", digest: "d0" });

async function rows(url: string, text: string): Promise<Record<string, unknown>[]> {
  const sql = new SQL(url, { max: 1 });
  pools.push(sql);
  return [...(await sql.unsafe(text))];
}

describe.skipIf(pg === null)("watcher leases in PostgreSQL", () => {
  test("a subscription claims its new watcher; renewed while current; a second subscription shares it", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    const b = replica(url, "b");
    const lease = await a.subscribe("s1", wanted(), NOW, true);
    expect(lease).toMatchObject({ id: watcherId("claude", "rta://fs/read/notes.txt"), agent: "claude", digest: "d0" });
    expect(lease?.fence).toBeGreaterThan(0);
    // the same agent and URI through another replica: the same watcher, not claimed again
    expect(await b.subscribe("s2", wanted(), NOW, true)).toBeUndefined();
    expect(await rows(url, "SELECT owner, fence::text AS fence FROM watchers")).toEqual([
      { owner: "a", fence: String(lease?.fence) },
    ]);
    const id = lease?.id as string;
    expect([...(await a.renew([{ id, fence: lease?.fence as number }], NOW + 1000))]).toEqual([id]);
    // renewed: still not claimable when the first 15 s would have ended
    expect(await b.claimExpired(NOW + LEASE_MS, 10)).toEqual([]);
  });

  test("a lease not renewed for 15 s is re-claimed with a higher fence; the superseded worker's writes are refused", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    const b = replica(url, "b");
    const first = await a.subscribe("s1", wanted(), NOW, true);
    const old = { id: first?.id as string, fence: first?.fence as number };
    expect(await b.claimExpired(NOW + LEASE_MS - 1, 10)).toEqual([]);
    const [taken] = await b.claimExpired(NOW + LEASE_MS, 10);
    expect(taken?.id).toBe(old.id);
    expect(taken?.fence).toBeGreaterThan(old.fence);
    expect(taken?.digest).toBe("d0");
    const heard: string[] = [];
    const listener = new SQL(url, { max: 1 });
    pools.push(listener);
    const listening = await listener.listen(CHANNEL, (id) => heard.push(id));
    // the superseded worker: its renewal and its change are refused, and nothing is told
    expect([...(await a.renew([old], NOW + LEASE_MS + 1))]).toEqual([]);
    expect(await a.tell(old, "d1", NOW + LEASE_MS + 1)).toBe(false);
    // the current one: told, and heard by every replica listening
    const current = { id: taken?.id as string, fence: taken?.fence as number };
    expect(await b.tell(current, "d2", NOW + LEASE_MS + 2)).toBe(true);
    for (let i = 0; i < 50 && heard.length === 0; i++) await Bun.sleep(20);
    await listening.unlisten();
    expect(heard).toEqual([old.id]);
    expect(await rows(url, "SELECT owner, digest FROM watchers")).toEqual([{ owner: "b", digest: "d2" }]);
    // its own lease run out, a holder's writes are refused too, though nobody claimed it
    expect(await b.tell(current, "d3", NOW + 2 * LEASE_MS + 1)).toBe(false);
  });

  test("two replicas claiming the same expired leases at once: each lease has one winner", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    const b = replica(url, "b");
    for (let i = 0; i < 20; i++) await a.subscribe(`s${i}`, wanted(`rta://fs/read/${i}.txt`), NOW, false);
    for (let round = 1; round <= 5; round++) {
      const at = NOW + round * LEASE_MS;
      const [x, y] = await Promise.all([a.claimExpired(at, 100), b.claimExpired(at, 100)]);
      const ids = [...(x ?? []), ...(y ?? [])].map((r) => r.id);
      expect(ids.length).toBe(20);
      expect(new Set(ids).size).toBe(20);
    }
    const owners = await rows(url, "SELECT count(DISTINCT fence)::int AS fences, count(*)::int AS n FROM watchers");
    expect(owners).toEqual([{ fences: 20, n: 20 }]);
  });

  test("a replica's bound: it claims no more than its room", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    for (let i = 0; i < 5; i++) await a.subscribe(`s${i}`, wanted(`rta://fs/read/${i}.txt`), NOW, false);
    expect((await a.claimExpired(NOW, 3)).length).toBe(3);
    expect((await replica(url, "b").claimExpired(NOW, 0)).length).toBe(0);
    expect((await replica(url, "b").claimExpired(NOW, 9)).length).toBe(2);
  });

  test("an agent's share of a replica: its watchers past it wait, and the others' are claimed in turn", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    for (let i = 0; i < 6; i++)
      await a.subscribe(`m${i}`, { ...wanted(`rta://fs/read/m${i}.txt`), agent: "mallory" }, NOW, false);
    await a.subscribe("c0", wanted("rta://fs/read/c0.txt"), NOW, false);
    // room for 4, at most 2 of one agent's: mallory's many do not take the claude watcher's turn
    const first = await a.claimExpired(NOW, 4, 2);
    expect(first.map((w) => w.agent).sort()).toEqual(["claude", "mallory", "mallory"]);
    // held here, mallory's 2 are its share: none more of its own, however much room is left
    expect(await a.claimExpired(NOW, 10, 2)).toEqual([]);
    // another replica runs its share too
    expect((await replica(url, "b").claimExpired(NOW, 10, 2)).map((w) => w.agent)).toEqual(["mallory", "mallory"]);
  });

  test("released leases are claimable at once", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    const lease = await a.subscribe("s1", wanted(), NOW, true);
    await a.release([{ id: lease?.id as string, fence: lease?.fence as number }]);
    const [taken] = await replica(url, "b").claimExpired(NOW + 1, 10);
    expect(taken?.fence).toBeGreaterThan(lease?.fence as number);
  });

  test("unsubscribing the last subscription drops the watcher; its worker's renewal is refused", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    const lease = await a.subscribe("s1", wanted(), NOW, true);
    await a.subscribe("s2", wanted(), NOW, true);
    await a.unsubscribe("s1");
    expect((await rows(url, "SELECT id FROM watchers")).length).toBe(1);
    await a.unsubscribe("s2");
    await a.unsubscribe("s2"); // again: nothing
    expect(await rows(url, "SELECT id FROM watchers")).toEqual([]);
    expect([...(await a.renew([{ id: lease?.id as string, fence: lease?.fence as number }], NOW + 1))]).toEqual([]);
  });

  test("subscriptions whose replica stopped holding them are swept, and their watcher with the last", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    const b = replica(url, "b");
    await a.subscribe("s1", wanted("rta://grants"), NOW, true);
    await b.subscribe("s2", wanted("rta://grants"), NOW, true);
    await b.subscribe("s3", wanted("rta://capability/fs.read"), NOW, true);
    // b goes on holding its streams; a is gone
    await b.hold(NOW + LEASE_MS - 1);
    expect(await b.sweep(NOW + LEASE_MS)).toBe(1);
    const left = await rows(url, "SELECT s.id, w.uri FROM watch_subscriptions s JOIN watchers w ON w.id = s.watcher");
    expect(left.map((r) => r.id).sort()).toEqual(["s2", "s3"]);
    // now b is gone too
    expect(await a.sweep(NOW + 3 * LEASE_MS)).toBe(2);
    expect(await rows(url, "SELECT id FROM watchers")).toEqual([]);
  });

  test("a session's subscription whose session ended (recorded as it was removed) is swept, held or not", async () => {
    const url = await freshStore();
    const a = replica(url, "a");
    await rows(
      url,
      `INSERT INTO mcp_sessions (id, agent, protocol, client, capabilities, created_at, last_used)
       VALUES ('live', 'claude', '2025-11-25', '{}', '{}', ${NOW}, ${NOW})`,
    );
    await a.subscribe(`live ${watcherId("claude", "rta://grants")}`, wanted("rta://grants"), NOW, true);
    // a subscribe that passed its session's check while a DELETE through another replica removed the row
    await a.subscribe(`gone ${watcherId("claude", "rta://grants")}`, wanted("rta://grants"), NOW, true);
    // held by the replica that made it, it is not kept for a session no replica can continue
    await a.hold(NOW + 1000);
    expect(await a.sweep(NOW + 1000)).toBe(1);
    expect((await rows(url, "SELECT id FROM watch_subscriptions")).map((r) => r.id)).toEqual([
      `live ${watcherId("claude", "rta://grants")}`,
    ]);
  });
});
