/**
 * End to end: Bun's server cuts a connection that is silent for its idle timeout (10 s). A request that passed every
 * check is not cut for being quiet: a 2025-11-25 session's GET stream with nothing to say yet stays open past it (a
 * long call's answer takes the same path). A request that has not shown a token is still cut as before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";

let srv: RunningHttp;
beforeAll(async () => {
  srv = await startHttp();
});
afterAll(async () => {
  await srv.stop();
});

/** Past Bun's idle timeout of 10 s. */
const PAST_IDLE_MS = 12_000;

test("a session's quiet GET stream outlasts the server's idle timeout", async () => {
  const token = await srv.token("quiet");
  const init = await srv.initialize(token);
  const id = init.headers.get("mcp-session-id") ?? "";
  expect(id).not.toBe("");
  await init.text();
  const headers = {
    authorization: `Bearer ${token}`,
    "mcp-session-id": id,
    "mcp-protocol-version": "2025-11-25",
  };
  await fetch(srv.url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  const stream = await fetch(srv.url, { headers: { ...headers, accept: "text/event-stream" } });
  expect(stream.status).toBe(200);
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  let ended = false;
  const reading = (async () => {
    for (;;) if ((await reader.read()).done) break;
    ended = true;
  })().catch(() => {
    ended = true;
  });
  await Bun.sleep(PAST_IDLE_MS);
  expect(ended).toBe(false);
  await reader.cancel();
  await reading;
}, 30_000);
