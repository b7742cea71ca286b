/**
 * End to end: one agent's many subscriptions on a replica of a PostgreSQL store (test/support/pg.ts) do not take
 * every watcher the replica runs. Its watchers past its share wait, and another agent subscribing after it is told
 * of its file's change. No wait is timed: it is bounded only by the test's own limit.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import { MAX_WORKERS, MAX_WORKERS_PER_AGENT } from "../../src/mcp/leases.ts";
import { MAX_SUBSCRIPTIONS } from "../../src/mcp/subscriptions.ts";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { rta } from "../support/rta.ts";

const pg = await pgServer();

const clients: Client[] = [];
let replica: RunningHttp | undefined;
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await replica?.stop();
});

/** A 2025-11-25 client (a session, with its stream) of `srv` with `token`, and a wait for its first notice. */
async function subscriber(srv: RunningHttp, token: string) {
  const client = new Client({ name: "watch-share-e2e", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  const told = new Promise<string>((resolve) => {
    client.setNotificationHandler("notifications/resources/updated", async (n) => resolve(n.params.uri));
  });
  return { client, told };
}

describe.skipIf(pg === null)("an agent's share of a replica's watchers", () => {
  test("one agent subscribed past every worker: another agent's subscription is still watched and told", async () => {
    const store = await (pg?.freshDb() as Promise<string>);
    const root = tempDir();
    const many = MAX_WORKERS + MAX_SUBSCRIPTIONS;
    for (let i = 0; i < many; i++) writeFileSync(join(root, `m${i}.txt`), `${i}\n`);
    writeFileSync(join(root, "alice.txt"), "one\n");
    replica = await startHttp(["--root", root, "--store", store]);
    const token = async (agent: string) => {
      const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
      const made = await rta(["mcp", "token", "new", "--agent", agent, "--json", "--store", store], { env });
      return JSON.parse(made.stdout).token as string;
    };
    const mallory = await token("mallory");
    for (let s = 0; s * MAX_SUBSCRIPTIONS < many; s++) {
      const { client } = await subscriber(replica, mallory);
      for (let i = s * MAX_SUBSCRIPTIONS; i < Math.min(many, (s + 1) * MAX_SUBSCRIPTIONS); i++)
        await client.subscribeResource({ uri: `rta://fs/read/m${i}.txt` });
    }
    const alice = await subscriber(replica, await token("alice"));
    await alice.client.subscribeResource({ uri: "rta://fs/read/alice.txt" });
    writeFileSync(join(root, "alice.txt"), "two, changed\n");
    expect(await alice.told).toBe("rta://fs/read/alice.txt");
    const sql = new SQL(store, { max: 1 });
    const held = await sql.unsafe(
      "SELECT agent, count(*)::int AS n FROM watchers WHERE owner IS NOT NULL AND expires_at > 0 GROUP BY agent ORDER BY agent",
    );
    await sql.close();
    expect([...held]).toEqual([
      { agent: "alice", n: 1 },
      { agent: "mallory", n: MAX_WORKERS_PER_AGENT },
    ]);
  }, 60_000);
});
