/**
 * MCP over HTTP: calls per second of sys_info from 8 concurrent clients on
 * loopback (the official client, 2025-11-25 sessions), and the server's peak
 * RSS while they run. Then the attack that once took the server to 3.9 GB:
 * 800 connections with a bad Host and no token, each sending a 4 MiB body
 * slowly; the server's RSS before, at its peak and after, and how many were
 * answered before their body was sent. RTA_BIN names another binary to
 * measure (an older build, for a before-and-after).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { peakSinceExec } from "./mcpDriver.ts";

const CLIENTS = 8;
const CALLS_PER_CLIENT = 500;
const rta = process.env.RTA_BIN ?? join(import.meta.dir, "..", "dist", "rta");
const ATTACKERS = 800;
const ATTACK_BODY = 4 * 1024 * 1024;
const ATTACK_CHUNK = 256 * 1024;
const ATTACK_EVERY_MS = 100;
const dir = mkdtempSync(join(tmpdir(), "rta-bench-http-"));
const env = { PATH: process.env.PATH ?? "", RTA_DATA_DIR: join(dir, "data"), RTA_CONFIG_DIR: join(dir, "config") };

try {
  const made = Bun.spawnSync([rta, "mcp", "token", "new", "--agent", "bench", "--json"], { env });
  const token = JSON.parse(made.stdout.toString()).token as string;
  const server = Bun.spawn([rta, "mcp", "serve", "--http", "127.0.0.1:0"], { env, stderr: "pipe", stdout: "ignore" });
  const reader = (server.stderr as ReadableStream<Uint8Array>).getReader();
  let banner = "";
  let port = 0;
  while (!port) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`rta did not start: ${banner}`);
    banner += new TextDecoder().decode(value);
    port = Number(banner.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1] ?? 0);
  }
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const c = new Client({ name: "bench", version: "1" });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      for (let i = 0; i < 20; i++) await c.callTool({ name: "sys_info", arguments: {} });
      return c;
    }),
  );
  let peak = peakSinceExec(server.pid) ?? 0;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < CALLS_PER_CLIENT; i++) {
        const r = await c.callTool({ name: "sys_info", arguments: {} });
        if (r.isError) throw new Error("call failed");
        if (i % 50 === 0) peak = Math.max(peak, peakSinceExec(server.pid) ?? 0);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  peak = Math.max(peak, peakSinceExec(server.pid) ?? 0);
  await Promise.all(clients.map((c) => c.close()));
  console.log(
    `mcp over http (${CLIENTS} concurrent clients, ${CLIENTS * CALLS_PER_CLIENT} calls of sys_info, loopback)`,
  );
  console.log(
    `  ${Math.round((CLIENTS * CALLS_PER_CLIENT) / seconds).toLocaleString("en")} calls/s; server peak RSS ${(peak / 1024 / 1024).toFixed(1)} MiB`,
  );
  await attack(port, server.pid);
  server.kill("SIGTERM");
  await server.exited;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The server's resident memory now, in bytes. */
function rssNow(pid: number): number {
  const kb = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  return Number(kb ?? 0) * 1024;
}

async function attack(port: number, pid: number): Promise<void> {
  const before = rssNow(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssNow(pid));
  }, 100);
  const t0 = performance.now();
  const outcomes = await Promise.all(
    Array.from(
      { length: ATTACKERS },
      () =>
        new Promise<{ early: boolean }>((resolve) => {
          const sock = connect(port, "127.0.0.1");
          let sent = 0;
          let answered = -1;
          sock.on("data", () => {
            if (answered < 0) answered = sent;
          });
          sock.on("error", () => {});
          sock.on("close", () => resolve({ early: answered === 0 }));
          sock.on("connect", async () => {
            sock.write(
              `POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: ${ATTACK_BODY}\r\n\r\n`,
            );
            while (sent < ATTACK_BODY && answered < 0 && !sock.destroyed) {
              await Bun.sleep(ATTACK_EVERY_MS);
              if (answered >= 0 || sock.destroyed) break;
              sock.write(Buffer.alloc(ATTACK_CHUNK, 0x20));
              sent += ATTACK_CHUNK;
            }
            // Wait for the answer to a whole body, as the attacker would, then go.
            setTimeout(() => sock.destroy(), 2000);
          });
        }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  await Bun.sleep(500);
  const after = rssNow(pid);
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `${ATTACKERS} slow connections, bad Host, no token, ${ATTACK_BODY / 1024 / 1024} MiB bodies in ${ATTACK_CHUNK / 1024} KiB steps`,
  );
  console.log(
    `  server RSS ${mib(before)} before, ${mib(peak)} at peak, ${mib(after)} after; ${outcomes.filter((o) => o.early).length} answered before their body was sent; ${seconds.toFixed(1)} s`,
  );
}
