import { describe, expect, test } from "bun:test";
import { Client, type InMemoryTransport as ClientPipe } from "@modelcontextprotocol/client";
import { InMemoryTransport, Server } from "@modelcontextprotocol/server";
import { CallsInFlight, finishCalls } from "../../../src/mcp/serve/callsInFlight.ts";

/** A server whose one tool waits until released or aborted, and a client connected to it in memory. */
async function pair(calls: CallsInFlight) {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  let release: () => void = () => {};
  const outcomes: string[] = [];
  server.setRequestHandler("tools/list", async () => ({ tools: [] }));
  server.setRequestHandler("tools/call", async (_req, ctx) => {
    const how = await new Promise<string>((resolve) => {
      release = () => resolve("finished");
      ctx.mcpReq.signal.addEventListener("abort", () => resolve("cancelled"));
    });
    outcomes.push(how);
    return { content: [{ type: "text", text: how }] };
  });
  calls.track(server);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(b as unknown as ClientPipe);
  return { client, release: () => release(), outcomes };
}

describe("CallsInFlight", () => {
  test("a call is counted while it runs; settled resolves when it ends", async () => {
    const calls = new CallsInFlight();
    const { client, release, outcomes } = await pair(calls);
    const call = client.callTool({ name: "x", arguments: {} });
    for (let i = 0; i < 100 && calls.size === 0; i++) await Bun.sleep(1);
    expect(calls.size).toBe(1);
    const settled = calls.settled(60_000);
    release();
    expect(await settled).toBe(true);
    expect(outcomes).toEqual(["finished"]);
    await call;
  });

  test("past the grace a call is cancelled, and finishCalls waits for it to end", async () => {
    const calls = new CallsInFlight();
    const { client, outcomes } = await pair(calls);
    void client.callTool({ name: "x", arguments: {} }).catch(() => undefined);
    for (let i = 0; i < 100 && calls.size === 0; i++) await Bun.sleep(1);
    expect(await finishCalls(calls, undefined, 10, 60_000)).toBe(0);
    expect(outcomes).toEqual(["cancelled"]);
  });

  test("a second signal cuts the grace short", async () => {
    const calls = new CallsInFlight();
    const { client, outcomes } = await pair(calls);
    void client.callTool({ name: "x", arguments: {} }).catch(() => undefined);
    for (let i = 0; i < 100 && calls.size === 0; i++) await Bun.sleep(1);
    expect(await finishCalls(calls, Promise.resolve(), 60_000, 60_000)).toBe(0);
    expect(outcomes).toEqual(["cancelled"]);
  });

  test("the client's own cancellation reaches the call through its signal", async () => {
    const calls = new CallsInFlight();
    const { client, outcomes } = await pair(calls);
    const cancel = new AbortController();
    const call = client.callTool({ name: "x", arguments: {} }, { signal: cancel.signal }).catch(() => "refused");
    for (let i = 0; i < 100 && calls.size === 0; i++) await Bun.sleep(1);
    expect(calls.size).toBe(1);
    cancel.abort();
    expect(await call).toBe("refused");
    expect(await calls.settled(60_000)).toBe(true);
    expect(outcomes).toEqual(["cancelled"]);
  });

  test("a call that starts after cancel() starts cancelled", async () => {
    const calls = new CallsInFlight();
    const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({ tools: [] }));
    server.setRequestHandler("tools/call", async (_req, ctx) => ({
      content: [{ type: "text", text: ctx.mcpReq.signal.aborted ? "cancelled" : "ran" }],
    }));
    calls.track(server);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: "c", version: "1" });
    await client.connect(b as unknown as ClientPipe);
    expect((await client.callTool({ name: "x", arguments: {} })).content).toEqual([{ type: "text", text: "ran" }]);
    calls.cancel();
    expect((await client.callTool({ name: "x", arguments: {} })).content).toEqual([
      { type: "text", text: "cancelled" },
    ]);
    expect(calls.size).toBe(0);
  });
});

describe("CallsInFlight without a promise (the direct path's calls)", () => {
  test("a call entered is counted and cancelled until it has left; a stopping server waits for it", async () => {
    const calls = new CallsInFlight();
    const stop = new AbortController();
    calls.entered(stop);
    expect(calls.size).toBe(1);
    let settled: boolean | undefined;
    const waiting = calls.settled(5_000).then((s) => {
      settled = s;
    });
    await Bun.sleep(5);
    expect(settled).toBeUndefined();
    calls.cancel();
    expect(stop.signal.aborted).toBe(true);
    calls.left(stop);
    await waiting;
    expect(settled).toBe(true);
    expect(calls.size).toBe(0);
  });

  test("a call entered after cancel() starts aborted", () => {
    const calls = new CallsInFlight();
    calls.cancel();
    const stop = new AbortController();
    calls.entered(stop);
    expect(stop.signal.aborted).toBe(true);
    calls.left(stop);
    expect(calls.size).toBe(0);
  });
});
