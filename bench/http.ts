/**
 * MCP over HTTP: calls per second of sys_info from 8 concurrent clients on
 * loopback (the official client, 2025-11-25 sessions), and the server's peak
 * RSS while they run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { peakSinceExec } from "./mcpDriver.ts";

const CLIENTS = 8;
const CALLS_PER_CLIENT = 500;
const rta = join(import.meta.dir, "..", "dist", "rta");
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
  server.kill("SIGTERM");
  await server.exited;
  console.log(
    `mcp over http (${CLIENTS} concurrent clients, ${CLIENTS * CALLS_PER_CLIENT} calls of sys_info, loopback)`,
  );
  console.log(
    `  ${Math.round((CLIENTS * CALLS_PER_CLIENT) / seconds).toLocaleString("en")} calls/s; server peak RSS ${(peak / 1024 / 1024).toFixed(1)} MiB`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
