/**
 * End to end: over stdio at most REQUESTS_IN_FLIGHT requests are served at
 * once, and each place is freed once its request is done with: by the
 * server's answer, or by the client's cancellation (the SDK then sends no
 * answer), never by a request the transport answers itself (-32600) under
 * the id of a call being served. The calls in flight are to a local server
 * that holds each request until told.
 */
import { afterAll, expect, test } from "bun:test";
import { REQUESTS_IN_FLIGHT } from "../../src/mcp/requestValues.ts";
import { tempDir } from "../support/fixtures.ts";
import { RTA, rta } from "../support/rta.ts";
import { stdioLines } from "../support/stdioLines.ts";

/** Requests read past the places taken before reading stops (boundedStdio.ts). */
const WAITING_READ = 8;
const held: (() => void)[] = [];
/** Until a test lets go, each request is held; after, each is answered at once. */
let holdOn = true;
let arrivedAll: () => void = () => {};
const allArrived = new Promise<void>((resolve) => {
  arrivedAll = resolve;
});
let heldOne = () => {};
/** Resolves once `n` requests are held. */
async function holdingMany(n: number) {
  while (held.length < n) await new Promise<void>((resolve) => (heldOne = resolve));
}
const holding = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch: () =>
    new Promise<Response>((resolve) => {
      if (!holdOn) return resolve(new Response("answered"));
      held.push(() => resolve(new Response("held, then answered")));
      heldOne();
      if (held.length === REQUESTS_IN_FLIGHT) arrivedAll();
    }),
});
afterAll(() => {
  holdOn = false;
  for (const answer of held.splice(0)) answer();
  holding.stop(true);
});

type Line = { id?: unknown; error?: { code: number } };
const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const call = (id: number) =>
  line({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "http_get", arguments: { url: `http://127.0.0.1:${holding.port}/${id}` } },
  });
const invalid = (m: Line) => m.error?.code === -32600;
const callAnswer = (m: Line) => typeof m.id === "number" && m.id > 0 && !invalid(m);

/** rta mcp serve over stdio, initialized, for an agent that may get from 127.0.0.1; every line it writes, in order. */
async function serving() {
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
  const { out, until, send } = stdioLines<Line>(proc);
  await send(
    line({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    }) + line({ jsonrpc: "2.0", method: "notifications/initialized" }),
  );
  await until(() => out.some((m) => m.id === 0));
  const stop = async () => {
    await proc.stdin.end();
    await proc.exited;
  };
  return { out, until, send, stop };
}

test("an invalid request under a call's id does not let a call past REQUESTS_IN_FLIGHT", async () => {
  const { out, until, send, stop } = await serving();
  try {
    const calls = REQUESTS_IN_FLIGHT + 1;
    let text = "";
    for (let id = 1; id <= calls; id++) {
      text += call(id);
      // before the last call's twin, as many more calls as may wait while reading goes on: its answer says all were read
      if (id === calls) for (let more = calls + 1; more < calls + WAITING_READ; more++) text += call(more);
      text += line({ jsonrpc: "2.0", id, method: "tools/call", params: 5 });
    }
    await send(text);
    await until(() => out.filter(invalid).length === calls);
    // Read only once a place is free again: WAITING_READ calls wait for one, and no line is read meanwhile.
    await send(line({ jsonrpc: "2.0", id: "last", method: "tools/call", params: 5 }));
    await allArrived;
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await until(() => out.some((m) => m.id === "last"));
    const firstCall = out.findIndex(callAnswer);
    expect(firstCall).toBeGreaterThan(-1);
    expect(firstCall).toBeLessThan(out.findIndex((m) => m.id === "last"));
    await until(() => out.filter(callAnswer).length === calls + WAITING_READ - 1);
  } finally {
    await stop();
  }
}, 30_000);

test("calls the client cancelled free their places: the session is served after more than REQUESTS_IN_FLIGHT of them", async () => {
  const { out, until, send, stop } = await serving();
  try {
    holdOn = true;
    let text = "";
    for (let id = 1; id <= REQUESTS_IN_FLIGHT + 8; id++)
      text +=
        call(id) +
        line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } });
    await send(text + line({ jsonrpc: "2.0", id: "after", method: "tools/list" }));
    await until(() => out.some((m) => m.id === "after"));
    // cancelled, so never answered
    expect(out.filter(callAnswer)).toEqual([]);
  } finally {
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await stop();
  }
}, 30_000);

test("a client whose every place is a call that hangs, and which sent one request more, can still cancel one", async () => {
  const { out, until, send, stop } = await serving();
  try {
    holdOn = true;
    let text = "";
    for (let id = 1; id <= REQUESTS_IN_FLIGHT; id++) text += call(id);
    await send(`${text}${line({ jsonrpc: "2.0", id: "waits", method: "tools/list" })}`);
    await holdingMany(REQUESTS_IN_FLIGHT);
    // read behind the waiting request: the cancellation frees a place while every call still hangs
    await send(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "stop" } }));
    await until(() => out.some((m) => m.id === "waits"));
    expect(held.length).toBe(REQUESTS_IN_FLIGHT);
    expect(out.filter(callAnswer)).toEqual([]);
    // a waiting request the client cancels is never served, and its cancellation takes no place
    let more = "";
    for (let id = 100; id < 100 + WAITING_READ; id++) more += call(id);
    for (let id = 101; id < 100 + WAITING_READ; id++)
      more += line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } });
    await send(`${more}${line({ jsonrpc: "2.0", id: "still", method: "tools/list" })}`);
    await holdingMany(REQUESTS_IN_FLIGHT + 1);
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await until(() => out.some((m) => m.id === "still"));
    expect(out.filter(callAnswer).map((m) => m.id)).not.toContain(1);
    await until(() => out.filter(callAnswer).length === REQUESTS_IN_FLIGHT);
    expect(out.filter(callAnswer).map((m) => m.id)).toContain(100);
    expect(out.filter(callAnswer).map((m) => m.id)).not.toContain(101);
  } finally {
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await stop();
  }
}, 30_000);

test("a cancellation the SDK refuses frees no place: its call is still counted", async () => {
  const { out, until, send, stop } = await serving();
  try {
    holdOn = true;
    let text = "";
    // a reason that is not a string: the SDK drops the cancellation, and the call runs on
    for (let id = 1; id <= REQUESTS_IN_FLIGHT; id++)
      text +=
        call(id) + line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: 5 } });
    await send(text + line({ jsonrpc: "2.0", id: "after", method: "tools/list" }));
    await holdingMany(REQUESTS_IN_FLIGHT);
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await until(() => out.some((m) => m.id === "after"));
    // "after" waited for a place: a call was answered first
    const firstCall = out.findIndex(callAnswer);
    expect(firstCall).toBeGreaterThan(-1);
    expect(firstCall).toBeLessThan(out.findIndex((m) => m.id === "after"));
  } finally {
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await stop();
  }
}, 30_000);

test("a call under the id of one being served is refused: a twice-sent cancellation cannot free the first call's place", async () => {
  const { out, until, send, stop } = await serving();
  try {
    holdOn = true;
    let text = "";
    const pairs = REQUESTS_IN_FLIGHT / 2;
    // the SDK would keep the twin's cancel alone: the first cancellation aborts the twin, the second frees the first
    // call's place while it runs on
    for (let id = 1; id <= pairs; id++) text += call(id) + call(id);
    for (let id = 1; id <= pairs; id++) {
      const cancel = line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
      text += cancel + cancel;
    }
    await send(text + line({ jsonrpc: "2.0", id: "after", method: "tools/list" }));
    await until(() => out.some((m) => m.id === "after"));
    const refused = out.filter(
      (m) =>
        (m as { error?: { message?: string } }).error?.message ===
        "the request's id is that of a request still being served",
    );
    expect(refused.map((m) => m.id)).toEqual(Array.from({ length: pairs }, (_, i) => i + 1));
  } finally {
    holdOn = false;
    for (const answer of held.splice(0)) answer();
    await stop();
  }
}, 30_000);
