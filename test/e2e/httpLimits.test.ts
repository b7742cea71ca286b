/**
 * End to end: what a caller can make rta mcp serve --http hold. A caller with
 * no token (or a bad Host) is answered from its headers alone and its
 * connection closed, without a byte of its body read; callers with a token
 * are held to a share and a total of bodies in flight; a body that trickles
 * is cut; one agent cannot end another's sessions. Raw sockets send what a
 * client would not.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect as tcp } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { resultJson } from "../support/mcpClient.ts";

const MiB = 1024 * 1024;

interface Exchange {
  /** what the server sent back */
  reply: string;
  /** body bytes this side had written when the reply began (or when the server closed, without one) */
  sentWhenAnswered: number;
  /** the server closed the connection */
  closed: Promise<void>;
}

/**
 * Opens a raw connection, writes the head, then the body `chunk` bytes at a
 * time every `everyMs` until `total` or the server answers or closes. A
 * pacing of writes is how the client behaves; nothing asserts a time.
 */
function exchange(port: number, head: string, body: { chunk: number; everyMs: number; total: number }): Exchange {
  const sock = tcp(port, "127.0.0.1");
  let reply = "";
  let sent = 0;
  let sentWhenAnswered = -1;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  const out: Exchange = {
    get reply() {
      return reply;
    },
    get sentWhenAnswered() {
      return sentWhenAnswered;
    },
    closed,
  };
  sock.on("data", (d) => {
    if (sentWhenAnswered < 0) sentWhenAnswered = sent;
    reply += d.toString();
  });
  sock.on("close", () => {
    if (sentWhenAnswered < 0) sentWhenAnswered = sent;
    resolveClosed();
  });
  sock.on("error", () => {});
  sock.on("connect", async () => {
    sock.write(head);
    while (sent < body.total && sentWhenAnswered < 0 && !sock.destroyed) {
      if (body.everyMs > 0) await Bun.sleep(body.everyMs);
      if (sentWhenAnswered >= 0 || sock.destroyed) break;
      const n = Math.min(body.chunk, body.total - sent);
      sock.write(Buffer.alloc(n, 0x20));
      sent += n;
    }
  });
  (out as { destroy?: () => void }).destroy = () => sock.destroy();
  return out;
}

const destroy = (e: Exchange) => (e as unknown as { destroy: () => void }).destroy();

function head(port: number, headers: Record<string, string>, length: number): string {
  const lines = Object.entries({
    Host: `127.0.0.1:${port}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Content-Length": String(length),
    ...headers,
  }).map(([k, v]) => `${k}: ${v}`);
  return `POST /mcp HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`;
}

const statusOf = (reply: string) => Number(reply.match(/^HTTP\/1\.1 (\d{3}) /)?.[1] ?? 0);

function rssMiB(pid: number): number {
  const kib = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0);
  return kib / 1024;
}

let srv: RunningHttp;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  srv = await startHttp();
  for (const agent of ["alice", "bob", "carol", "dave", "erin"]) tokens[agent] = await srv.token(agent);
});
afterAll(async () => {
  await srv.stop();
});

describe("before the token", () => {
  test("a bad Host or no token is answered before a byte of a 4 MiB body is sent, and the connection closed", async () => {
    for (const headers of [{ Host: "evil.example" }, {}, { Origin: "http://evil.example" }] as Record<
      string,
      string
    >[]) {
      const e = exchange(srv.port, head(srv.port, headers, 4 * MiB), { chunk: 64 * 1024, everyMs: 50, total: 4 * MiB });
      await e.closed;
      expect([401, 403]).toContain(statusOf(e.reply));
      expect(e.sentWhenAnswered).toBe(0);
    }
  }, 30_000);

  test("800 slow connections with a bad Host and no token are each answered at once; the server does not grow", async () => {
    const before = rssMiB(srv.proc.pid);
    const all = Array.from({ length: 800 }, (_, i) =>
      exchange(srv.port, head(srv.port, i % 2 ? { Host: "evil.example" } : {}, 4 * MiB), {
        chunk: 16 * 1024,
        everyMs: 200,
        total: 4 * MiB,
      }),
    );
    await Promise.all(all.map((e) => e.closed));
    const after = rssMiB(srv.proc.pid);
    console.log(
      `rss before ${before.toFixed(1)} MiB, after 800 slow unauthenticated connections ${after.toFixed(1)} MiB`,
    );
    for (const e of all) {
      expect([401, 403]).toContain(statusOf(e.reply));
      expect(e.sentWhenAnswered).toBe(0);
    }
    // Generous: the 3.9 GB this once reached is what it guards against.
    expect(after - before).toBeLessThan(256);
  }, 60_000);
});

describe("with a token", () => {
  test("bodies held past an agent's share get 429 and past the server's total 503, both with Retry-After", async () => {
    const auth = (agent: string) => ({ Authorization: `Bearer ${tokens[agent]}` });
    // Four agents each start four 4 MiB bodies and send one byte of each: 64 MiB held, the server's total.
    const holders = ["alice", "bob", "carol", "dave"].flatMap((agent) =>
      Array.from({ length: 4 }, () =>
        exchange(srv.port, head(srv.port, auth(agent), 4 * MiB), { chunk: 1, everyMs: 0, total: 1 }),
      ),
    );
    const probe = (agent: string) =>
      fetch(srv.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth(agent) },
        body: "x".repeat(1024),
      });
    // The holders' heads reach the server on their own connections; ask until the total is seen taken.
    let full: Response | undefined;
    for (let i = 0; i < 200 && full?.status !== 503; i++) {
      full = await probe("erin");
      if (full.status !== 503) await Bun.sleep(25);
    }
    expect(full?.status).toBe(503);
    expect(full?.headers.get("retry-after")).toBe("5");
    const share = await probe("alice");
    expect(share.status).toBe(429);
    expect(share.headers.get("retry-after")).toBe("5");
    // When the holders go, what they held is given back.
    for (const h of holders) destroy(h);
    await Promise.all(holders.map((h) => h.closed));
    let again: Response | undefined;
    for (let i = 0; i < 200 && again?.status !== 400 && again?.status !== 200; i++) {
      again = await probe("erin");
      if (again.status === 503) await Bun.sleep(25);
    }
    expect([200, 400]).toContain(again?.status ?? 0); // not JSON-RPC, but let in
  }, 30_000);

  test("a body that trickles in is cut at the deadline with 408", async () => {
    // 20 KiB every half second keeps Bun's idle timer from firing: only a deadline for the whole body stops it.
    const e = exchange(srv.port, head(srv.port, { Authorization: `Bearer ${tokens.alice}` }, 2 * MiB), {
      chunk: 20 * 1024,
      everyMs: 500,
      total: 2 * MiB,
    });
    await e.closed;
    expect(statusOf(e.reply)).toBe(408);
    expect(e.sentWhenAnswered).toBeLessThan(2 * MiB);
  }, 60_000);

  test("a head that trickles in is closed by Bun before it reaches rta", async () => {
    const sock = tcp(srv.port, "127.0.0.1");
    let reply = "";
    let sent = 0;
    const closed = new Promise<void>((resolve) => sock.on("close", () => resolve()));
    sock.on("data", (d) => {
      reply += d.toString();
    });
    sock.on("error", () => {});
    sock.on("connect", async () => {
      sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
      for (; sent < 60 && !sock.destroyed; sent++) {
        await Bun.sleep(500);
        sock.write("a");
      }
    });
    await closed;
    expect(sent).toBeLessThan(60); // the server closed it while the head was still arriving
    expect(reply).toBe("");
  }, 60_000);
});

describe("sessions", () => {
  async function legacyClient(token: string): Promise<Client> {
    const c = new Client({ name: "sessions-e2e", version: "1" });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return c;
  }
  const initialize = (token: string) => srv.initialize(token, "bob");

  test("Bob opening 300 sessions ends only Bob's oldest; Alice's session still works", async () => {
    const alice = await legacyClient(tokens.alice as string);
    try {
      expect(alice.getProtocolEra()).toBe("legacy");
      const bobs: string[] = [];
      for (let i = 0; i < 300; i++) {
        const r = await initialize(tokens.bob as string);
        expect(r.status).toBe(200);
        bobs.push(r.headers.get("mcp-session-id") as string);
        await r.body?.cancel();
      }
      const list = await alice.listTools();
      expect(list.tools.map((t) => t.name)).toContain("sys_info");
      expect(resultJson(await alice.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
      const ping = (id: string) =>
        fetch(srv.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${tokens.bob}`,
            "mcp-session-id": id,
            "mcp-protocol-version": "2025-11-25",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        });
      expect((await ping(bobs[0] as string)).status).toBe(404); // Bob's oldest made room for his newest
      expect((await ping(bobs[299] as string)).status).toBe(200);
    } finally {
      await alice.close();
    }
  }, 60_000);
});
