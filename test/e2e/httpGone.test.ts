/**
 * End to end: over HTTP a 2025-11-25 client that leaves before its calls are
 * answered gives back its slots, and its calls are cancelled with them: they
 * do not run on unnumbered, past REQUESTS_IN_FLIGHT. The calls are to a
 * local server that never answers and notes each request its caller drops.
 */
import { afterAll, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { REQUESTS_IN_FLIGHT } from "../../src/mcp/requestValues.ts";
import { startHttp } from "../support/httpServer.ts";
import { rta } from "../support/rta.ts";

let arrived = 0;
let dropped = 0;
let wake = () => {};
const never = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch: (req) => {
    arrived++;
    req.signal.addEventListener("abort", () => {
      dropped++;
      wake();
    });
    wake();
    return new Promise<Response>(() => {});
  },
});
afterAll(() => never.stop(true));
const until = async (seen: () => boolean) => {
  while (!seen()) await new Promise<void>((resolve) => (wake = resolve));
};

test("a 2025-11-25 client gone before its answers cancels its calls, so they hold no more than its slots did", async () => {
  const srv = await startHttp();
  try {
    const token = await srv.token("a");
    const granted = await rta(["grant", "allow", "http.get", "--agent", "a", "--ttl", "5m", "--host", "127.0.0.1"], {
      env: srv.env,
    });
    expect(granted.code).toBe(0);
    const headers = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await fetch(srv.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    });
    const session = {
      ...headers,
      "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-11-25",
    };
    await init.text();
    await (
      await fetch(srv.url, {
        method: "POST",
        headers: session,
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      })
    ).text();
    // Each call on a connection of its own, dropped once every call has reached the server that never answers.
    const sockets: Socket[] = [];
    for (let id = 1; id <= REQUESTS_IN_FLIGHT; id++) {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "http_get", arguments: { url: `http://127.0.0.1:${never.port}/${id}` } },
      });
      const socket = connect(srv.port, "127.0.0.1");
      socket.on("error", () => {});
      let head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
      for (const [k, v] of Object.entries(session)) head += `${k}: ${v}\r\n`;
      socket.write(`${head}\r\n${body}`);
      sockets.push(socket);
    }
    await until(() => arrived === REQUESTS_IN_FLIGHT);
    for (const socket of sockets) socket.destroy();
    // Every call stops: the server that never answers sees each of its requests dropped.
    await until(() => dropped === REQUESTS_IN_FLIGHT);
    expect(dropped).toBe(arrived);
  } finally {
    await srv.stop();
  }
  const log = await rta(["agent", "log", "--json"], { env: srv.env });
  const outcomes = (JSON.parse(log.stdout) as { capability: string; outcome: string }[])
    .filter((e) => e.capability === "http_get")
    .map((e) => e.outcome);
  expect(outcomes).toEqual(Array(REQUESTS_IN_FLIGHT).fill("core.call.cancelled"));
  expect((await rta(["agent", "log", "--verify"], { env: srv.env })).code).toBe(0);
}, 30_000);
