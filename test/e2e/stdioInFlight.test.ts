/**
 * End to end: over stdio at most REQUESTS_IN_FLIGHT requests are served at
 * once, and the client cannot free a place by sending, under the id of a call
 * being served, a request the transport answers itself (-32600). Calls to a
 * local server that holds each request until told are the ones in flight; a
 * last invalid line, read only once reading goes on, shows where the bound
 * stopped reading.
 */
import { afterAll, expect, test } from "bun:test";
import { REQUESTS_IN_FLIGHT } from "../../src/mcp/boundedStdio.ts";
import { tempDir } from "../support/fixtures.ts";
import { RTA, rta } from "../support/rta.ts";

const held: (() => void)[] = [];
/** Until the test lets go, each request is held; after, each is answered at once. */
let holdOn = true;
let arrivedAll: () => void = () => {};
const allArrived = new Promise<void>((resolve) => {
  arrivedAll = resolve;
});
const holding = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch: () =>
    new Promise<Response>((resolve) => {
      if (!holdOn) return resolve(new Response("answered"));
      held.push(() => resolve(new Response("held, then answered")));
      if (held.length === REQUESTS_IN_FLIGHT) arrivedAll();
    }),
});
afterAll(() => holding.stop(true));

const line = (m: unknown) => `${JSON.stringify(m)}\n`;

test("an invalid request under a call's id does not let a call past REQUESTS_IN_FLIGHT", async () => {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  const granted = await rta(["grant", "allow", "http.get", "--agent", "a", "--ttl", "5m", "--host", "127.0.0.1"], {
    env,
  });
  expect(granted.code).toBe(0);
  const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "a"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
    env: { PATH: process.env.PATH ?? "", HOME: env.RTA_DATA_DIR, ...env },
  });
  // Every line rta writes, in order, and a wait for the first that matches.
  const out: { id?: unknown; error?: { code: number } }[] = [];
  let wake = () => {};
  void (async () => {
    const decoder = new TextDecoder();
    let carry = "";
    for await (const chunk of proc.stdout) {
      carry += decoder.decode(chunk, { stream: true });
      const lines = carry.split("\n");
      carry = lines.pop() ?? "";
      for (const l of lines) out.push(JSON.parse(l));
      wake();
    }
  })();
  const until = async (seen: () => boolean) => {
    while (!seen()) await new Promise<void>((resolve) => (wake = resolve));
  };
  try {
    proc.stdin.write(
      line({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }) + line({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    await until(() => out.some((m) => m.id === 0));
    const calls = REQUESTS_IN_FLIGHT + 1;
    let text = "";
    for (let id = 1; id <= calls; id++) {
      const url = `http://127.0.0.1:${holding.port}/${id}`;
      text += line({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "http_get", arguments: { url } } });
      text += line({ jsonrpc: "2.0", id, method: "tools/call", params: 5 });
    }
    proc.stdin.write(text);
    await proc.stdin.flush();
    const invalid = (m: (typeof out)[number]) => m.error?.code === -32600;
    await until(() => out.filter(invalid).length === calls);
    // Read only once a place is free again: the last call waits for one, and no line is read meanwhile.
    proc.stdin.write(line({ jsonrpc: "2.0", id: "last", method: "tools/call", params: 5 }));
    await proc.stdin.flush();
    await allArrived;
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await until(() => out.some((m) => m.id === "last"));
    const last = out.findIndex((m) => m.id === "last");
    const firstCall = out.findIndex((m) => typeof m.id === "number" && m.id > 0 && !invalid(m));
    expect(firstCall).toBeGreaterThan(-1);
    expect(firstCall).toBeLessThan(last);
    await until(() => out.filter((m) => typeof m.id === "number" && m.id > 0 && !invalid(m)).length === calls);
  } finally {
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await proc.stdin.end();
    await proc.exited;
  }
}, 30_000);
