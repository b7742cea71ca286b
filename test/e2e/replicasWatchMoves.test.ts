/**
 * End to end: a 2025-11-25 session's resource subscriptions follow its GET stream across two `rta mcp serve --http`
 * replicas on one PostgreSQL store (test/support/pg.ts). The client talks to both through a load balancer of the
 * test's own (a loopback proxy whose target the test switches): subscribed through A, its stream moved to B (the
 * GET on A cut while A runs, or A stopped gracefully), it is told of a change through B, and may unsubscribe
 * through B. A store that cannot be reached answers a token it cannot check with 503 and Retry-After (the store
 * cut by a TCP proxy between the replica and PostgreSQL), and 200 again once it is back. No wait is timed: each is
 * bounded only by the test's own limit.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Socket, SQL } from "bun";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { count, twoReplicas as replicas, sessionOf, updates } from "../support/replicas.ts";
import { rta } from "../support/rta.ts";

const pg = await pgServer();
const URI = "rta://fs/read/notes.txt";

const running: RunningHttp[] = [];
const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c();
  for (const r of running.splice(0)) if (r.proc.exitCode === null && r.proc.signalCode === null) await r.stop();
});

/**
 * A load balancer of one target at a time (one for GETs, one for the rest): `to` switches both, `streamTo` the GETs'
 * only; `cut` ends the GET streams it carries now.
 */
function balancer(first: RunningHttp) {
  let target = first;
  let streamTarget = first;
  const streams = new Set<AbortController>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const abort = new AbortController();
      const headers = new Headers(req.headers);
      headers.delete("host");
      const body = req.method === "POST" ? await req.arrayBuffer() : undefined;
      if (req.method === "GET") streams.add(abort);
      try {
        const port = (req.method === "GET" ? streamTarget : target).port;
        return await fetch(`http://127.0.0.1:${port}${url.pathname}`, {
          method: req.method,
          headers,
          body,
          signal: abort.signal,
        });
      } catch {
        return new Response("the replica is away\n", { status: 502 });
      }
    },
  });
  closing.push(() => server.stop(true));
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    to: (next: RunningHttp) => {
      target = next;
      streamTarget = next;
    },
    streamTo: (next: RunningHttp) => {
      streamTarget = next;
    },
    cut: () => {
      for (const a of streams) a.abort();
      streams.clear();
    },
  };
}

/** A 2025-11-25 client of `url` (a session, with its stream), and the URIs it is told changed, with a wait. */
async function subscriber(url: string, token: string) {
  const client = new Client({ name: "watch-moves-e2e", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  closing.push(() => client.close().catch(() => {}));
  return { client, transport, ...updates(client) };
}

/** Waits until every subscription row is held by `srv` (its stream's replica took them back). */
async function heldBy(store: string, srv: RunningHttp, rows = 1): Promise<void> {
  const sql = new SQL(store, { max: 1 });
  try {
    for (;;) {
      const held = await sql.unsafe("SELECT holder FROM watch_subscriptions");
      if (held.length === rows && [...held].every((r: { holder: string }) => r.holder.endsWith(` ${sessionOf(srv)}`)))
        return;
      await Bun.sleep(50);
    }
  } finally {
    await sql.close();
  }
}

/** Two replicas on a fresh store, sharing one root with notes.txt in it, an agent's token, and a balancer on A. */
async function twoReplicas() {
  const two = await replicas(await (pg?.freshDb() as Promise<string>), running);
  return { ...two, lb: balancer(two.a) };
}

describe.skipIf(pg === null)("a session's subscriptions follow its stream across replicas", () => {
  test("subscribed through A, its GET stream moved to B while A runs: told through B, unsubscribed through B", async () => {
    const { store, file, a, b, token, lb } = await twoReplicas();
    const sub = await subscriber(lb.url, token);
    await sub.client.subscribeResource({ uri: URI });
    await heldBy(store, a);
    appendFileSync(file, "two\n");
    expect(await sub.nth(1)).toBe(URI);

    // the balancer sends the session to B from now on, and the stream on A is cut: the client opens it again on B
    lb.to(b);
    lb.cut();
    await heldBy(store, b);
    appendFileSync(file, "three\n");
    expect(await sub.nth(2)).toBe(URI);
    // told once: A, which still holds a copy of the session but not its stream, tells nothing
    expect(sub.told).toEqual([URI, URI]);

    // B built the session again holding its subscription: the client unsubscribes through B, and the rows go
    await sub.client.unsubscribeResource({ uri: URI });
    while ((await count(store, "watchers")) > 0) await Bun.sleep(50);
    expect(await count(store, "watch_subscriptions")).toBe(0);
  }, 60_000);

  test("subscribed through A, A stopped gracefully: the session's subscription goes on through B", async () => {
    const { store, file, a, b, token, lb } = await twoReplicas();
    const sub = await subscriber(lb.url, token);
    await sub.client.subscribeResource({ uri: URI });
    // told on its stream on A: the stream is open
    appendFileSync(file, "two\n");
    expect(await sub.nth(1)).toBe(URI);
    lb.to(b);
    await a.stop();
    // A's stream ended with it; the client opened it again through the balancer, on B, which took the row back
    await heldBy(store, b);
    appendFileSync(file, "three\n");
    expect(await sub.nth(2)).toBe(URI);
    const read = await sub.client.readResource({ uri: URI });
    expect(JSON.stringify(read.contents)).toContain("three");
    // the client ends its session: its subscription ends with it
    await sub.transport.terminateSession();
    while ((await count(store, "watchers")) > 0) await Bun.sleep(50);
    expect(await count(store, "watch_subscriptions")).toBe(0);
  }, 60_000);
});

describe.skipIf(pg === null)("a session's subscriptions made where its stream is not", () => {
  test("subscribed through A while its stream is on B, A stopped: B holds the subscription on, and tells it", async () => {
    const { store, file, a, b, token, lb } = await twoReplicas();
    const other = join(file, "..", "other.txt");
    writeFileSync(other, "one\n");
    const sub = await subscriber(lb.url, token);
    await sub.client.subscribeResource({ uri: URI });
    // told on its stream on A: the stream is open
    appendFileSync(file, "two\n");
    expect(await sub.nth(1)).toBe(URI);
    // the stream moves to B; the requests still go to A
    lb.streamTo(b);
    lb.cut();
    await heldBy(store, b);
    await sub.client.subscribeResource({ uri: "rta://fs/read/other.txt" });
    appendFileSync(other, "two\n");
    expect(await sub.nth(2)).toBe("rta://fs/read/other.txt");
    // A, where the second was made, stops and lets it go: B, holding the stream, holds it on (never swept)
    lb.to(b);
    await a.stop();
    await heldBy(store, b, 2);
    appendFileSync(file, "three\n");
    expect(await sub.nth(3)).toBe(URI);
    appendFileSync(other, "three\n");
    expect(await sub.nth(4)).toBe("rta://fs/read/other.txt");
  }, 60_000);

  test("subscribed through A while its stream is on B, unsubscribed through B: its row goes, though B never held it", async () => {
    const { store, file, b, token, lb } = await twoReplicas();
    const other = join(file, "..", "other.txt");
    writeFileSync(other, "one\n");
    const sub = await subscriber(lb.url, token);
    await sub.client.subscribeResource({ uri: URI });
    lb.streamTo(b);
    lb.cut();
    await heldBy(store, b);
    // made through A after B took the session's rows back: B's copy of the session does not hold it
    await sub.client.subscribeResource({ uri: "rta://fs/read/other.txt" });
    expect(await count(store, "watch_subscriptions")).toBe(2);
    lb.to(b);
    // before, the unsubscribe through B dropped nothing, and the client was told of other.txt's changes for good
    await sub.client.unsubscribeResource({ uri: "rta://fs/read/other.txt" });
    while ((await count(store, "watch_subscriptions")) > 1) await Bun.sleep(50);
    await heldBy(store, b);
  }, 60_000);
});

/** A TCP relay to PostgreSQL's port, which `cut` stops (every connection ended, none taken) and `mend` restores. */
async function relay(pgUrl: string) {
  const to = new URL(pgUrl);
  const open = new Set<Socket<unknown>>();
  let port = 0;
  const listen = () =>
    Bun.listen<{ peer?: Socket<unknown>; early: Uint8Array[] }>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          open.add(client);
          client.data = { early: [] };
          void Bun.connect({
            hostname: to.hostname,
            port: Number(to.port),
            socket: {
              data: (_s, chunk) => {
                client.write(chunk);
              },
              close: () => {
                client.end();
              },
              error: () => {
                client.end();
              },
            },
          }).then(
            (peer) => {
              open.add(peer);
              for (const chunk of client.data.early.splice(0)) peer.write(chunk);
              client.data.peer = peer;
            },
            () => client.end(),
          );
        },
        data(client, chunk) {
          if (client.data.peer) client.data.peer.write(chunk);
          else client.data.early.push(new Uint8Array(chunk));
        },
        close(client) {
          client.data.peer?.end();
        },
      },
    });
  let listener = listen();
  port = listener.port;
  closing.push(() => listener.stop(true));
  const url = new URL(pgUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    cut: () => {
      listener.stop(true);
      for (const s of open) s.end();
      open.clear();
    },
    mend: () => {
      listener = listen();
    },
  };
}

describe.skipIf(pg === null)("a store that cannot be reached", () => {
  test("a token that cannot be checked is answered 503 with Retry-After, and 200 once the store is back", async () => {
    const store = await (pg?.freshDb() as Promise<string>);
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
    const made = await rta(["mcp", "token", "new", "--agent", "claude", "--json", "--store", store], { env });
    const token = JSON.parse(made.stdout).token as string;
    const cable = await relay(store);
    const srv = await startHttp(["--store", cable.url]);
    running.push(srv);
    expect((await srv.initialize(token)).status).toBe(200);

    cable.cut();
    const away = await srv.initialize(token);
    expect(away.status).toBe(503);
    expect(away.headers.get("retry-after")).toMatch(/^\d+$/);
    const said = await away.text();
    expect(said).toContain("cannot reach its store");
    expect(said).not.toContain(String(new URL(cable.url).port));
    // a wrong token is not told 401 either while nothing can be checked: it learns nothing of what exists
    expect((await srv.initialize("rta_wrong")).status).toBe(503);

    cable.mend();
    let back = await srv.initialize(token);
    // the store's client makes its connection again on the next ask after a failed one
    while (back.status === 503) back = await srv.initialize(token);
    expect(back.status).toBe(200);
    expect(srv.stderr()).not.toContain("internal error");
  }, 60_000);
});

describe.skipIf(pg === null)("a session ended through another replica than its stream's", () => {
  test("its DELETE through B ends its GET stream on A, and its subscription with it", async () => {
    const { store, a, b, token } = await twoReplicas();
    const init = await a.initialize(token);
    const id = init.headers.get("mcp-session-id") as string;
    await init.text();
    const headers = { authorization: `Bearer ${token}`, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    const post = (body: unknown) =>
      fetch(a.url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
      }).then((r) => r.text());
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(await post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: URI } })).toContain(
      '"result":{}',
    );
    const stream = await fetch(a.url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    await heldBy(store, a);
    expect((await fetch(b.url, { method: "DELETE", headers })).status).toBe(200);
    // the session's row is gone at once; its subscription goes after, as an unsubscribe's does
    expect(await count(store, "mcp_sessions")).toBe(0);
    while ((await count(store, "watch_subscriptions")) > 0) await Bun.sleep(50);
    // A holds no row of it any more: its stream there ends (before, it stayed open, silent, for as long as A ran)
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    while (!(await reader.read()).done);
  }, 60_000);
});
