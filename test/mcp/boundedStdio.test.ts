/**
 * The stdio transport's bound on requests served at once: REQUESTS_IN_FLIGHT
 * places, each freed by the server's answer to the request that held it, and
 * by nothing the client can make the transport say itself.
 */
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { BoundedStdioTransport } from "../../src/mcp/boundedStdio.ts";
import { REQUESTS_IN_FLIGHT } from "../../src/mcp/requestValues.ts";

function transport() {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: unknown[] = [];
  let carry = "";
  output.on("data", (chunk: Buffer) => {
    carry += chunk.toString();
    const lines = carry.split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) written.push(JSON.parse(line));
  });
  const t = new BoundedStdioTransport({ input, output, say: () => {} });
  const served: (string | number)[] = [];
  t.onmessage = (m) => {
    if ("id" in m && "method" in m) served.push(m.id);
  };
  return { t, input, served, written };
}

/** Lets the streams hand on what was written: a turn of the event loop, no clock. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const call = (id: number) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "fs_read", arguments: { path: "a" } } })}\n`;
/** Calls 1 to `last`, in order, as one write. */
const callsUpTo = (last: number) => Array.from({ length: last }, (_, i) => call(i + 1)).join("");
/** JSON-RPC the transport answers itself (-32600), under the id of a request being served. */
const invalidTwin = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: 5 })}\n`;

describe("requests in flight over stdio", () => {
  test("past REQUESTS_IN_FLIGHT a request waits until an answer frees a place", async () => {
    const { t, input, served } = transport();
    await t.start();
    const text = callsUpTo(REQUESTS_IN_FLIGHT + 1);
    input.write(text);
    await turn();
    expect(served.length).toBe(REQUESTS_IN_FLIGHT);
    await t.send({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage);
    expect(served.length).toBe(REQUESTS_IN_FLIGHT + 1);
    await t.close();
  });

  test("an invalid request under a served request's id is answered, and frees no place", async () => {
    const { t, input, served, written } = transport();
    await t.start();
    let text = "";
    for (let id = 1; id <= REQUESTS_IN_FLIGHT + 8; id++) text += call(id) + invalidTwin(id);
    input.write(text);
    await turn();
    // every twin is answered -32600 under its id, and only REQUESTS_IN_FLIGHT calls are being served
    expect(written.length).toBe(REQUESTS_IN_FLIGHT + 8);
    expect(written[0]).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid Request" } });
    expect(served.length).toBe(REQUESTS_IN_FLIGHT);
    // the server's own answer still frees the place its request held
    await t.send({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage);
    expect(served.length).toBe(REQUESTS_IN_FLIGHT + 1);
    await t.close();
  });

  test("a request the client cancels frees its place: the SDK never answers it", async () => {
    const { t, input, served } = transport();
    await t.start();
    const cancel = (requestId: number) =>
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "stop" } })}\n`;
    const text = callsUpTo(REQUESTS_IN_FLIGHT);
    input.write(text + cancel(1) + call(REQUESTS_IN_FLIGHT + 1));
    await turn();
    expect(served).toEqual(Array.from({ length: REQUESTS_IN_FLIGHT + 1 }, (_, i) => i + 1));
    // a cancellation of a request not being served (any more) frees nothing
    input.write(cancel(1) + cancel(999) + call(REQUESTS_IN_FLIGHT + 2));
    await turn();
    expect(served.length).toBe(REQUESTS_IN_FLIGHT + 1);
    await t.close();
  });

  test("a cancellation the SDK refuses frees no place: its call runs on and answers", async () => {
    const { t, input, served } = transport();
    await t.start();
    // the SDK drops a cancellation whose reason is not a string, or whose id no request can have: nothing is cancelled
    const refused = [{ requestId: 1, reason: 5 }, { requestId: 2, _meta: 3 }, { requestId: 3.5 }].map(
      (params) => `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params })}\n`,
    );
    const text = callsUpTo(REQUESTS_IN_FLIGHT);
    input.write(text + refused.join("") + call(REQUESTS_IN_FLIGHT + 1));
    await turn();
    expect(served.length).toBe(REQUESTS_IN_FLIGHT);
    // the call's own answer still frees its place
    await t.send({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage);
    expect(served.length).toBe(REQUESTS_IN_FLIGHT + 1);
    await t.close();
  });

  test("a request under the id of one being served is answered -32600, and a cancellation of that id frees one place", async () => {
    const { t, input, served, written } = transport();
    await t.start();
    const cancel = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })}\n`;
    const text = callsUpTo(REQUESTS_IN_FLIGHT);
    // the twin of call 1 is not served; the SDK would keep the twin's cancel alone, and call 1 would run uncounted
    input.write(call(1) + call(1) + text.slice(call(1).length) + cancel + cancel + call(REQUESTS_IN_FLIGHT + 1));
    await turn();
    expect(written).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: "the request's id is that of a request still being served" },
      },
    ]);
    // the one cancellation freed call 1's place; the second freed nothing
    expect(served).toEqual(Array.from({ length: REQUESTS_IN_FLIGHT + 1 }, (_, i) => i + 1));
    input.write(call(REQUESTS_IN_FLIGHT + 2));
    await turn();
    expect(served.length).toBe(REQUESTS_IN_FLIGHT + 1);
    await t.close();
  });

  test("a cancellation the 2026-07-28 schema refuses frees no place: its _meta names a subscription by no request id", async () => {
    const { t, input, served } = transport();
    await t.start();
    const params = { requestId: 1, _meta: { "io.modelcontextprotocol/subscriptionId": true } };
    const text = callsUpTo(REQUESTS_IN_FLIGHT);
    input.write(
      `${text}${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params })}\n${call(REQUESTS_IN_FLIGHT + 1)}`,
    );
    await turn();
    expect(served.length).toBe(REQUESTS_IN_FLIGHT);
    await t.close();
  });
});
