/**
 * The stdio direct path answers byte for byte as the SDK does: the same
 * requests, sent in the same order to a server with the direct path and to
 * one without it (every request through the SDK), give the same answer
 * frames, in both eras, and the same record lines. Each sequence also shows
 * the direct path took calls, so the comparison cannot pass by falling back.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { builtins } from "../../../src/capabilities/builtins.ts";
import { sysInfo } from "../../../src/capabilities/sys/info.ts";
import { RtaError } from "../../../src/core/errors.ts";
import { agentLimits } from "../../../src/gate/bound.ts";
import { PathGate } from "../../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../../src/gate/paths/rules.ts";
import type { DirectCalls } from "../../../src/mcp/serve/directCall.ts";
import { SessionRecord } from "../../../src/mcp/serve/session.ts";
import { serveStdio } from "../../../src/mcp/serve/stdio.ts";
import type { FileRecord, RecordEntry } from "../../../src/record/append.ts";
import { tempDir, testDeps } from "../../support/fixtures.ts";
import { catalogueOf } from "../../support/validators.ts";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";
const MODERN = "2026-07-28";
const envelope = (name = "client-a", version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name, version: "1.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

/** sys_info, made to wait until the test lets it go or its call is cancelled: a call that is mid-way. */
const gates: (() => void)[] = [];
const waiting = {
  ...sysInfo,
  run: async (_args: unknown, ctx: { signal: AbortSignal }) => {
    await new Promise<void>((resolve) => {
      gates.push(resolve);
      ctx.signal.addEventListener("abort", () => resolve());
    });
    if (ctx.signal.aborted) throw new RtaError("core.call.cancelled", "the call was cancelled");
    return { type: "text" as const, text: "let go" };
  },
};
const catalogue = catalogueOf([...builtins.filter((c) => c.name !== "sys.info"), waiting]);
const root = tempDir();
writeFileSync(join(root, "a.txt"), "hello\tworld\n\u001b[31mred\n");

/** One step of a sequence: a message to send (an object, or raw text), and how many answers it brings. */
type Step = { send: unknown; answers: number } | { letGo: true } | { settle: (lines: RecordEntry[]) => boolean };
const ask = (send: unknown, answers = 1): Step => ({ send, answers });
const tell = (send: unknown): Step => ({ send, answers: 0 });

/** Runs a sequence against a server with or without the direct path; returns its answer frames, record lines, and what it took. */
async function run(direct: boolean, steps: Step[]) {
  gates.length = 0;
  const input = new PassThrough();
  const output = new PassThrough();
  const frames: string[] = [];
  let text = "";
  let wake: () => void = () => {};
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    let nl = text.indexOf("\n");
    while (nl !== -1) {
      frames.push(text.slice(0, nl));
      text = text.slice(nl + 1);
      nl = text.indexOf("\n");
    }
    wake();
  });
  const lines: RecordEntry[] = [];
  const file = { append: (e: RecordEntry) => lines.push(e), close: () => {} } as unknown as FileRecord;
  const record = new SessionRecord(file);
  const dirs = { data: tempDir(), config: tempDir() };
  const deps = testDeps({ record, roots: new PathGate([root], agentRules(dirs)), dirs });
  let taken: DirectCalls | undefined;
  const served = serveStdio({
    catalogue,
    deps,
    record,
    recordFile: "record.jsonl",
    session: "s1",
    limits: agentLimits(),
    say: () => {},
    debug: false,
    stopSignal: () => new Promise(() => {}),
    input,
    output,
    shown: (s) => s,
    direct,
    onDirect: (d) => {
      taken = d;
    },
  });
  const until = async (n: number) => {
    while (frames.length < n) await new Promise<void>((resolve) => (wake = resolve));
  };
  let expected = 0;
  for (const step of steps) {
    if ("letGo" in step) {
      while (gates.length === 0) await Bun.sleep(1);
      for (const go of gates.splice(0)) go();
      await until(++expected); // its answer, before anything else is sent: answers to calls at once come in any order
    } else if ("settle" in step) {
      while (!step.settle(lines)) await Bun.sleep(1);
      gates.length = 0;
    } else {
      input.write(typeof step.send === "string" ? step.send : `${JSON.stringify(step.send)}\n`);
      expected += step.answers;
      await until(expected);
    }
  }
  input.end();
  await served;
  const kept = lines.map((l) => [l.kind ?? l.outcome, l.capability, l.agent, l.client].join(" "));
  return { frames, kept, taken: taken?.taken ?? 0 };
}

async function compare(steps: Step[], minTaken: number) {
  const sdk = await run(false, steps);
  const direct = await run(true, steps);
  expect(direct.frames).toEqual(sdk.frames);
  expect(direct.kept).toEqual(sdk.kept);
  expect(direct.taken).toBeGreaterThanOrEqual(minTaken);
  return direct;
}

const call = (id: unknown, name: unknown, args?: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
});

describe("the direct path answers as the SDK does", () => {
  test("2025-11-25: calls before and after initialize, ids, errors, bad params, progress, cancellation", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "Claude Code", version: "2" } },
    };
    const steps: Step[] = [
      ask(call(1, "jwt_decode", { token: TOKEN })), // before initialize: the SDK serves it, and pins the era
      ask(call(2, "jwt_decode", { token: TOKEN })),
      ask(initialize),
      tell({ jsonrpc: "2.0", method: "notifications/initialized" }),
      ask(call(3, "jwt_decode", { token: TOKEN })),
      ask(call("str-id", "fs_read", { path: "a.txt" })),
      ask(call("", "fs_read", { path: "a.txt" })),
      ask(call('q"\\\n\u2028\ud800\u001b', "fs_read", { path: "a.txt" })), // an id JSON escapes, whichever way the frame is made
      ask(call(46, "fs_read", { path: "\u001b\ud800.txt" })), // an error answer, its text escaped twice
      ask(call(Number.MAX_SAFE_INTEGER, "fs_read", { path: "a.txt" })),
      ask(call(-7, "fs_list", { path: "." })),
      ask(call(4, "nope_tool", {})),
      ask(call(5, `x${"y".repeat(5000)}`, {})),
      ask(call(6, "grant_allow", {})),
      ask(call(7, "jwt_decode", { token: 5 })),
      ask(call(8, "jwt_decode", { token: TOKEN, other: 1 })),
      ask(call(9, "fs_read", { path: "../outside" })),
      ask(call(10, "fs_read", { path: "missing.txt" })),
      ask(call(11, "jwt_decode")),
      ask({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { arguments: {} } }),
      ask(call(13, 42, {})),
      ask(call(14, null, {})),
      ask(call(15, "jwt_decode", [TOKEN])),
      ask(call(16, "jwt_decode", "token")),
      ask(call(17, "jwt_decode", null)),
      ask(call(18, "jwt_decode", { token: TOKEN }, { extra: true })),
      ask({ ...call(19, "jwt_decode", { token: TOKEN }), more: 1 }),
      ask(
        `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"jwt_decode","arguments":{"__proto__":{"token":1}}}}\n`,
      ),
      ask(
        `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/call","params":{"name":"jwt_decode"}}\n`,
      ),
      ask(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"jwt_decode"}}\n`),
      ask(call(21, "jwt_decode", { token: TOKEN }, { _meta: { progressToken: "p1" } })),
      ask(call(22, "jwt_decode", { token: TOKEN }, { _meta: { progressToken: "p1" } })),
      ask(call(23, "jwt_decode", { token: TOKEN }, { _meta: { progressToken: 1.5 } })),
      ask({ ...call(40, "jwt_decode", { token: TOKEN }), jsonrpc: "1.0" }),
      ask({ jsonrpc: "2.0", method: "tools/call", params: { name: "jwt_decode", arguments: { token: TOKEN } } }, 0),
      ask(
        `{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"jwt_decode","arguments":{"token":"${TOKEN}"}}}\n`,
      ),
      ask(
        `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"nope","name":"jwt_decode","arguments":{"token":"${TOKEN}","token":"a.b"}}}\n`,
      ),
      ask(
        `{"jsonrpc":"2.0","id":42,"method":"tools\\/call","params":{"name":"jwt_decode","arguments":{"token":"${TOKEN}"}}}\n`,
      ),
      ask(
        `{\n  "jsonrpc": "2.0",\n  "id": 43,\n  "method": "tools/call",\n  "params": {"name": "fs_read", "arguments": {"path": "a.txt"}}\n}\n`,
      ),
      ask(call(44, "jwt_decode", { token: TOKEN, nested: { deep: [1, { x: null }] } })),
      ask(
        `{"jsonrpc":"2.0","id":45,"method":"tools/call","params":{"name":"fs_read","arguments":{"path":"a.txt","limit":1e400}}}\n`,
      ),
      ask(call(24, "jwt_decode", { token: TOKEN }, { _meta: envelope() })),
      ask(call(25, "jwt_decode", { token: TOKEN }, { _meta: envelope() })),
      // cancelled mid-call: no answer, its place is free, and it is recorded as cancelled
      tell(call(26, "sys_info", {})),
      tell({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 26, reason: "no longer needed" },
      }),
      { settle: (lines) => lines.some((l) => l.outcome === "core.call.cancelled") },
      // a call let go answers; a cancellation naming an answered call changes nothing
      tell(call(27, "sys_info", {})),
      { letGo: true },
      ask(call(28, "jwt_decode", { token: TOKEN })),
      tell({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 27 } }),
      ask(call(26, "jwt_decode", { token: TOKEN })), // the cancelled call's id, free again
      ask({ jsonrpc: "2.0", id: 29, method: "ping" }),
      tell(call(30, "sys_info", {})), // under way when the client closes its end: stopped, recorded, not answered
    ];
    const { frames, taken, kept } = await compare(steps, 10);
    expect(frames.some((f) => f.includes('"id":26') && f.includes("let go"))).toBe(false);
    expect(frames.filter((f) => f.includes('"let go'))).toHaveLength(1);
    expect(taken).toBeGreaterThan(10);
    expect(kept.at(-2)).toBe("core.call.cancelled sys_info Claude-Code Claude Code 2");
  }, 30_000);

  test("2026-07-28: the envelope, its version, other clients, errors, bad params, progress, cancellation", async () => {
    const m = (id: unknown, name: unknown, args?: unknown, meta: unknown = envelope()) =>
      call(id, name, args, meta === undefined ? {} : { _meta: meta });
    const steps: Step[] = [
      ask({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: envelope() } }),
      ask(m(1, "jwt_decode", { token: TOKEN })), // the SDK serves it, and pins the era
      ask(m(2, "jwt_decode", { token: TOKEN })),
      ask(m("two", "fs_read", { path: "a.txt" })),
      ask(m(3, "jwt_decode", { token: TOKEN }, undefined)),
      ask(m(4, "jwt_decode", { token: TOKEN }, {})),
      ask(m(5, "jwt_decode", { token: TOKEN }, envelope("client-a", "2025-11-25"))),
      ask(m(6, "jwt_decode", { token: TOKEN }, envelope("client-a", "2099-01-01"))),
      ask(m(7, "jwt_decode", { token: TOKEN }, envelope("client-a", "2099-01-01"))),
      ask(m(8, "jwt_decode", { token: TOKEN }, { "io.modelcontextprotocol/protocolVersion": MODERN })),
      ask(m(9, "jwt_decode", { token: TOKEN }, { ...envelope(), "io.modelcontextprotocol/clientCapabilities": 5 })),
      ask(m(10, "jwt_decode", { token: TOKEN }, envelope("client-b"))),
      ask(m(11, "jwt_decode", { token: TOKEN }, envelope("client-b"))),
      ask(m(12, "jwt_decode", { token: TOKEN }, { ...envelope(), progressToken: "p" })),
      ask(m(13, "jwt_decode", { token: TOKEN }, { ...envelope(), progressToken: "p" })),
      ask(m(14, "nope_tool", {})),
      ask(m(15, "grant_allow", {})),
      ask(m(16, "jwt_decode", { token: 5 })),
      ask(m(17, "fs_read", { path: "../outside" })),
      ask(m('q"\\\n\u2028\ud800', "fs_read", { path: "a.txt" })),
      ask(m(40, "fs_read", { path: "\u001b\ud800.txt" })),
      ask(m(18, "jwt_decode")),
      ask(m(19, 42, {})),
      ask(m(20, "jwt_decode", [TOKEN])),
      ask({ ...m(21, "x", {}), params: { _meta: envelope() } }),
      ask({
        ...m(22, "jwt_decode", { token: TOKEN }),
        params: { ...m(22, "jwt_decode", { token: TOKEN }).params, x: 1 },
      }),
      ask({
        ...m(23, "jwt_decode", { token: TOKEN }),
        params: { ...m(23, "jwt_decode", {}).params, requestState: "s" },
      }),
      ask({
        jsonrpc: "2.0",
        id: 24,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
      tell(m(25, "sys_info", {})),
      tell({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 25, reason: "stop", _meta: envelope() },
      }),
      { settle: (lines) => lines.some((l) => l.outcome === "core.call.cancelled") },
      tell(m(26, "sys_info", {})),
      { letGo: true },
      ask(m(25, "jwt_decode", { token: TOKEN })),
      ask({ jsonrpc: "2.0", id: 27, method: "ping", params: { _meta: envelope() } }),
      tell(m(28, "sys_info", {})), // under way when the client closes its end: stopped, recorded, not answered
    ];
    const { frames } = await compare(steps, 8);
    expect(frames.filter((f) => f.includes('"let go'))).toHaveLength(1);
    expect(frames.some((f) => f.includes('"resultType":"complete"'))).toBe(true);
  }, 30_000);
});

describe("the direct path takes nothing the SDK refused, nor answers otherwise what it throws", () => {
  const m = (id: unknown, meta: unknown, extra: Record<string, unknown> = {}) =>
    call(id, "jwt_decode", { token: TOKEN }, { _meta: meta, ...extra });
  /** an envelope without the client's capabilities, which the SDK refuses, for a client named otherwise */
  const lacking = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "other", version: "1" },
  };

  test("2026-07-28: an envelope the SDK refused stays refused, whatever request later takes its id", async () => {
    const steps: Step[] = [
      ask(m(1, envelope())),
      ask(m(2, envelope())),
      // refused by the SDK; then its id, in a request the direct path leaves to the SDK, is handed over
      ask(m(7, lacking)),
      ask(m(7, envelope(), { extra: 1 })),
      ask(m(8, lacking)),
      // refused for its id in use, read before the SDK handed over the first
      ask(`${JSON.stringify(m(9, envelope()))}\n${JSON.stringify(m(9, lacking))}\n`, 2),
      ask(m(10, lacking)),
      ask(m(11, envelope())),
      // cancelled before the SDK handed it over, its id taken at once by a request the SDK refuses
      ask(
        [
          m(12, envelope("client-c")),
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12 } },
          m(12, lacking),
        ]
          .map((message) => `${JSON.stringify(message)}\n`)
          .join(""),
      ),
      ask(m(13, lacking)),
      // a request the direct path leaves to the SDK, cancelled before it is handed over; its id taken at once
      ask(
        [
          m(14, envelope(), { extra: 1 }),
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 14 } },
          m(14, lacking),
        ]
          .map((message) => `${JSON.stringify(message)}\n`)
          .join(""),
      ),
      ask(m(15, lacking)),
    ];
    const { frames, taken } = await compare(steps, 2);
    expect(frames.filter((f) => f.includes("Invalid _meta envelope"))).toHaveLength(7);
    expect(taken).toBeGreaterThanOrEqual(2);
  }, 30_000);

  test("2025-11-25: a client name that is not text is answered as the SDK answers it, and the session goes on", async () => {
    const named = { "io.modelcontextprotocol/clientInfo": { name: 5 } };
    const steps: Step[] = [
      ask({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
      tell({ jsonrpc: "2.0", method: "notifications/initialized" }),
      ask(m(1, named)),
      ask(m(2, named)),
      ask(m(3, named)),
      ask(call(4, "jwt_decode", { token: TOKEN })),
    ];
    const { frames, taken } = await compare(steps, 1);
    expect(frames.filter((f) => f.includes('"code":-32603'))).toHaveLength(3);
    expect(taken).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
