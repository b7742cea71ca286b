/**
 * End to end: a replica on a PostgreSQL store that stops answering (a proxy that keeps its connections open and
 * passes no byte on) while it watches a session's subscription. Asked to stop, it stops: what it owes the store
 * (its leases, its subscriptions' holds) waits no longer than a bound, as a record batch does, and the store's
 * leases run out for another replica to claim. No wait is timed: each is bounded only by the test's own limit.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { rta } from "../support/rta.ts";
import { freezable } from "../support/storeProxy.ts";

const pg = await pgServer();
const URI = "rta://fs/read/notes.txt";

const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c();
});

describe.skipIf(pg === null)("a replica whose shared store stops answering", () => {
  test("stops when asked, its subscriptions' store writes given up past their bound", async () => {
    const real = new URL(await (pg?.freshDb() as Promise<string>));
    const proxy = await freezable(real);
    closing.push(() => proxy.close());
    const store = new URL(real);
    store.port = String(proxy.port);
    const root = tempDir();
    writeFileSync(join(root, "notes.txt"), "one\n");
    const a: RunningHttp = await startHttp(["--root", root, "--store", store.toString()]);
    closing.push(() => a.proc.kill("SIGKILL"));
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
    const made = await rta(["mcp", "token", "new", "--agent", "claude", "--json", "--store", real.toString()], { env });
    const token = JSON.parse(made.stdout).token as string;
    const client = new Client({ name: "frozen-e2e", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(a.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    closing.push(() => client.close().catch(() => {}));
    await client.subscribeResource({ uri: URI });
    proxy.freeze();
    a.proc.kill("SIGTERM");
    expect(await a.proc.exited).toBe(0);
  }, 120_000);
});
