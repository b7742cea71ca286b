/**
 * End to end: rta mcp serve, over HTTP and over stdio, told to stop with calls under way. It
 * takes no new request, lets the calls finish (cancelling them past a grace
 * period), records them, and only then writes the session's end line, so
 * `rta agent log --verify` finds nothing out of order.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** A local server that answers each request after `delayMs`, and says when one has arrived. */
function slowServer(delayMs: number) {
  let arrived: () => void = () => {};
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch() {
      arrived();
      await Bun.sleep(delayMs);
      return new Response("late but here");
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/`,
    /** resolves when the next request has arrived */
    reached: () =>
      new Promise<void>((resolve) => {
        arrived = resolve;
      }),
    stop: () => server.stop(true),
  };
}

let slow: ReturnType<typeof slowServer>;
let stalled: ReturnType<typeof slowServer>;
beforeAll(() => {
  slow = slowServer(3000);
  stalled = slowServer(120_000);
});
afterAll(() => {
  slow.stop();
  stalled.stop();
});

async function stopWithCallUnderWay(
  era: "legacy" | "modern",
  target: ReturnType<typeof slowServer>,
  signals: 1 | 2 = 1,
) {
  const data = tempDir();
  const config = tempDir();
  const srv = await startHttp([], { data, config });
  const token = await srv.token("claude");
  await rta(["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "127.0.0.1"], {
    env: srv.env,
  });
  const c = new Client(
    { name: "shutdown-e2e", version: "1" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await c.connect(
    new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const reached = target.reached();
  // http_get waits up to 60 s when told to, longer than the server's grace for calls under way.
  const call = c.callTool({ name: "http_get", arguments: { url: target.url, timeout: 60 } }).then(
    (r) => resultJson(r),
    (e: Error) => ({ thrown: e.message }),
  );
  await reached;
  srv.proc.kill("SIGTERM");
  if (signals === 2) {
    while (!srv.stderr().includes("rta: stopping")) await Bun.sleep(10);
    srv.proc.kill("SIGTERM");
  }
  const answer = await call;
  expect(await srv.proc.exited).toBe(0);
  await c.close().catch(() => undefined);
  const lines = readRecord(join(data, "agent-log.jsonl")).lines;
  const verified = JSON.parse((await rta(["agent", "log", "--verify", "--json"], { env: srv.env })).stdout);
  return { answer, outcomes: lines.map((l) => l.kind ?? l.outcome), verified, stderr: srv.stderr() };
}

describe("a server stopped by SIGTERM with a call under way", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: the call finishes, is answered and recorded, and only then the session ends`, async () => {
      const { answer, outcomes, verified } = await stopWithCallUnderWay(era, slow);
      expect(answer).toMatchObject({ type: "object" });
      expect(outcomes).toEqual(["start", "run", "ok", "end"]);
      expect(verified).toMatchObject({ problems: [], open: [] });
    }, 30_000);
  }

  test("a call that does not finish within the grace is cancelled and recorded before the end line", async () => {
    const { answer, outcomes, verified } = await stopWithCallUnderWay("modern", stalled);
    expect(answer).toMatchObject({ type: "error", code: "core.call.cancelled" });
    expect(outcomes).toEqual(["start", "run", "core.call.cancelled", "end"]);
    expect(verified).toMatchObject({ problems: [], open: [] });
  }, 30_000);

  test("a second signal cancels the calls under way at once, and they are still recorded before the end", async () => {
    const { answer, outcomes, verified } = await stopWithCallUnderWay("legacy", stalled, 2);
    expect(answer).toMatchObject({ type: "error", code: "core.call.cancelled" });
    expect(outcomes).toEqual(["start", "run", "core.call.cancelled", "end"]);
    expect(verified).toMatchObject({ problems: [], open: [] });
  }, 30_000);
});

describe("a stdio server stopped by SIGTERM with a call under way", () => {
  test("a call that does not finish within the grace is cancelled and recorded before the end line", async () => {
    const data = tempDir();
    const config = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    await rta(["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "127.0.0.1"], { env });
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const reached = stalled.reached();
    const call = s.client
      .callTool({ name: "http_get", arguments: { url: stalled.url, timeout: 60 } })
      .then((r) => resultJson(r).code)
      .catch((e: Error) => e.message);
    await reached;
    process.kill(s.pid() as number, "SIGTERM");
    expect(await call).toBe("core.call.cancelled");
    await s.close().catch(() => undefined);
    const lines = readRecord(join(data, "agent-log.jsonl")).lines;
    expect(lines.map((l) => l.kind ?? l.outcome)).toEqual(["start", "run", "core.call.cancelled", "end"]);
    const verified = JSON.parse((await rta(["agent", "log", "--verify", "--json"], { env })).stdout);
    expect(verified).toMatchObject({ problems: [], open: [] });
  }, 30_000);
});
