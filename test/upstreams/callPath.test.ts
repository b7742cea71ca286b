/**
 * A tool's call on a real stdio upstream, as rta sends and reads it itself
 * (connection.ts): the bytes the SDK's client would send, its answers told
 * apart as before (the upstream's error, an invalid result, a time limit, a
 * cancel, a child gone), and the executable's check made where a child is
 * started, never while one runs.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { UpstreamRef } from "../../src/core/capability.ts";
import type { UpstreamConfig } from "../../src/core/configUpstreams.ts";
import { RtaError } from "../../src/core/errors.ts";
import { callUpstream } from "../../src/upstreams/call.ts";
import { UpstreamConnection } from "../../src/upstreams/connection.ts";
import { tempDir } from "../support/fixtures.ts";

const SCRIPT = join(import.meta.dir, "scriptedStdio.ts");
const SECRET = "s3cr3t-token-value";
const open: UpstreamConnection[] = [];

afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

/** A connection to the scripted upstream, with the file its lines are logged to. */
function scripted(callMs = 60_000): { connection: UpstreamConnection; log: string } {
  const log = join(tempDir(), "lines.jsonl");
  const config: UpstreamConfig = {
    name: "up",
    transport: { kind: "stdio", command: [process.execPath, SCRIPT], env: { LOG: log, SECRET } },
    tools: {},
  };
  const connection = new UpstreamConnection(config, {
    maxMessage: 1 << 20,
    home: tempDir(),
    connectMs: 10_000,
    callMs,
  });
  open.push(connection);
  return { connection, log };
}

const ref = (tool: string): UpstreamRef => ({ name: "up", tool, digest: "0", inputSchema: { type: "object" } });
const limits = { callMs: 60_000, hard: 1 << 20 };
const lines = (log: string) =>
  readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function refusal(p: Promise<unknown>): Promise<RtaError> {
  try {
    await p;
  } catch (err) {
    return err as RtaError;
  }
  throw new Error("expected a refusal");
}

describe("a tool's call on a stdio upstream", () => {
  test("is sent as the SDK's client sends it, its next id, and its text answer given back", async () => {
    const { connection, log } = scripted();
    const signal = new AbortController().signal;
    for (const text of ["one", "two"]) {
      const value = await callUpstream(connection, ref("echo"), { text }, signal, [SECRET], limits);
      expect(value).toEqual({ type: "text", text: JSON.stringify({ text }) });
    }
    const calls = lines(log).filter((m) => m.method === "tools/call");
    expect(calls).toEqual([
      { method: "tools/call", params: { name: "echo", arguments: { text: "one" } }, jsonrpc: "2.0", id: 1 },
      { method: "tools/call", params: { name: "echo", arguments: { text: "two" } }, jsonrpc: "2.0", id: 2 },
    ]);
    // an answer with _meta is read through the SDK's schema, and is the same answer
    const meta = await callUpstream(connection, ref("meta"), { text: "m" }, signal, [], limits);
    expect(meta).toEqual({ type: "text", text: JSON.stringify({ text: "m" }) });
  }, 30_000);

  test("calls at once are each given their own answer", async () => {
    const { connection } = scripted();
    const signal = new AbortController().signal;
    const texts = ["a", "b", "c", "d", "e"];
    const values = await Promise.all(
      texts.map((text) => callUpstream(connection, ref("echo"), { text }, signal, [], limits)),
    );
    expect(values).toEqual(texts.map((text) => ({ type: "text", text: JSON.stringify({ text }) })));
  }, 30_000);

  test("the upstream's error is upstream.<name>.error, its secret masked, and the connection serves on", async () => {
    const { connection, log } = scripted();
    const signal = new AbortController().signal;
    const err = await refusal(callUpstream(connection, ref("fail"), {}, signal, [SECRET], limits));
    expect(err).toBeInstanceOf(RtaError);
    expect(err.code as string).toBe("upstream.up.error");
    expect(err.message).toBe("bad token <upstream secret>");
    expect((await callUpstream(connection, ref("echo"), {}, signal, [], limits)).type).toBe("text");
    expect(lines(log).filter((m) => m.method === "initialize")).toHaveLength(1);
  }, 30_000);

  test("an invalid result is the upstream's malformed answer, and the connection serves the next call", async () => {
    const { connection, log } = scripted();
    const signal = new AbortController().signal;
    const err = await refusal(callUpstream(connection, ref("bad"), {}, signal, [], limits));
    expect(err.code).toBe("upstream.result.unsupported");
    expect(err.message).toBe("upstream up answered the call with no result in MCP's shape: its content is not a list");
    // kept: the upstream answered, so no backoff, and the next call goes on the same connection
    expect((await callUpstream(connection, ref("echo"), {}, signal, [], limits)).type).toBe("text");
    expect(lines(log).filter((m) => m.method === "initialize")).toHaveLength(1);
  }, 30_000);

  test("a call out of time is told to the upstream as cancelled, and the connection serves the next", async () => {
    const { connection, log } = scripted();
    const signal = new AbortController().signal;
    const err = await refusal(callUpstream(connection, ref("slow"), {}, signal, [], { ...limits, callMs: 200 }));
    expect(err.message).toBe("upstream up is unavailable: it did not answer in time");
    expect((await callUpstream(connection, ref("echo"), {}, signal, [], limits)).type).toBe("text");
    const said = lines(log);
    const slow = said.find((m) => (m.params as { name?: string } | undefined)?.name === "slow");
    const cancelled = said.find((m) => m.method === "notifications/cancelled");
    expect(cancelled?.params).toEqual({ requestId: slow?.id, reason: "Request timed out" });
    expect(said.filter((m) => m.method === "initialize")).toHaveLength(1);
  }, 30_000);

  test("a cancelled call is core.call.cancelled, and told to the upstream", async () => {
    const { connection, log } = scripted();
    const ac = new AbortController();
    const pending = refusal(callUpstream(connection, ref("slow"), {}, ac.signal, [], limits));
    // aborted once the upstream has the request
    while (!existsSync(log) || !lines(log).some((m) => m.method === "tools/call")) await Bun.sleep(10);
    ac.abort("the client went away");
    expect((await pending).code).toBe("core.call.cancelled");
    await callUpstream(connection, ref("echo"), {}, new AbortController().signal, [], limits);
    const cancelled = lines(log).find((m) => m.method === "notifications/cancelled");
    expect(cancelled?.params).toMatchObject({ reason: "the client went away" });
  }, 30_000);

  test("a child gone mid-call is upstream.unavailable", async () => {
    const { connection } = scripted();
    const err = await refusal(callUpstream(connection, ref("die"), {}, new AbortController().signal, [], limits));
    expect(err.code).toBe("upstream.unavailable");
    expect(err.message).toBe("upstream up is unavailable: it could not be reached, or stopped");
  }, 30_000);

  test("the check before a start runs where a child is started, never while one runs; its refusal starts none", async () => {
    const { connection, log } = scripted();
    const signal = new AbortController().signal;
    const changed = () => {
      throw new RtaError("upstream.changed", "upstream up's executable changed since it was approved", "approve it");
    };
    const refused = await refusal(callUpstream(connection, ref("echo"), {}, signal, [], limits, changed));
    expect(refused.code).toBe("upstream.changed");
    expect(existsSync(log)).toBe(false);
    let checks = 0;
    const counted = () => {
      checks += 1;
    };
    await callUpstream(connection, ref("echo"), {}, signal, [], limits, counted);
    await callUpstream(connection, ref("echo"), {}, signal, [], limits, changed);
    expect(checks).toBe(1);
    expect(lines(log).filter((m) => m.method === "tools/call")).toHaveLength(2);
  }, 30_000);
});
