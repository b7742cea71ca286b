/**
 * End to end: the stdio direct path answers a tools/call only as the SDK
 * would, on dist/rta itself. A `_meta` envelope the SDK refused stays
 * refused, whichever request later takes its id; and a client name that is
 * not text is answered as the SDK answers it, without ending the server.
 * Each request waits for the answer to the one before, so the order is fixed.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { RTA } from "../support/rta.ts";
import { stdioLines } from "../support/stdioLines.ts";

const MODERN = "2026-07-28";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";
const envelope = (name = "client-a") => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name, version: "1.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});
/** An envelope without the client's capabilities, which the SDK refuses (-32602), for a client named otherwise. */
const lacking = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "other", version: "1" },
};
const call = (id: number, meta: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "jwt_decode", arguments: { token: TOKEN }, _meta: meta, ...extra },
});

type Answer = { id: unknown; result?: unknown; error?: { code: number; message: string } };

/** rta mcp serve over stdio; ask() writes text and resolves with the next `n` answers. */
function serving() {
  const data = tempDir();
  const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "a"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
  });
  const { out, until, send } = stdioLines<Answer>(proc);
  let seen = 0;
  const ask = async (text: string, n = 1): Promise<Answer[]> => {
    await send(text);
    await until(() => out.length >= seen + n);
    const got = out.slice(seen, seen + n);
    seen += n;
    return got;
  };
  const end = async () => {
    await proc.stdin.end();
    return { code: await proc.exited, stderr: await new Response(proc.stderr).text() };
  };
  return { ask, end };
}
const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const refused = (a: Answer | undefined) => a?.error?.code === -32602 && a.error.message.includes("_meta envelope");

test("2026-07-28: an envelope the SDK refused is refused again after its id is handed over in another request", async () => {
  const { ask, end } = serving();
  for (const id of [1, 2]) expect((await ask(line(call(id, envelope()))))[0]?.result).toBeDefined();
  expect(refused((await ask(line(call(7, lacking))))[0])).toBe(true);
  expect((await ask(line(call(7, envelope(), { extra: 1 }))))[0]?.result).toBeDefined();
  expect(refused((await ask(line(call(8, lacking))))[0])).toBe(true);
  // the second refused for its id in use, read before the SDK handed over the first
  const [inUse, first] = await ask(line(call(9, envelope())) + line(call(9, lacking)), 2);
  expect(inUse?.error?.code).toBe(-32600);
  expect(first?.result).toBeDefined();
  expect(refused((await ask(line(call(10, lacking))))[0])).toBe(true);
  // one the direct path leaves to the SDK, cancelled before it is handed over, its id taken at once by a refused one
  const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 11 } };
  const [again] = await ask(line(call(11, envelope(), { extra: 1 })) + line(cancel) + line(call(11, lacking)));
  expect(refused(again)).toBe(true);
  expect(refused((await ask(line(call(12, lacking))))[0])).toBe(true);
  expect((await end()).code).toBe(0);
}, 20_000);

test("2025-11-25: a client name that is not text is answered -32603 each time, and the server serves on", async () => {
  const { ask, end } = serving();
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  };
  await ask(line(initialize));
  await ask(line({ jsonrpc: "2.0", method: "notifications/initialized" }), 0);
  const named = { "io.modelcontextprotocol/clientInfo": { name: 5 } };
  for (const id of [1, 2, 3]) expect((await ask(line(call(id, named))))[0]?.error?.code).toBe(-32603);
  const plain = call(4, undefined);
  expect((await ask(line(plain)))[0]?.result).toBeDefined();
  const { code, stderr } = await end();
  expect(code).toBe(0);
  expect(stderr).not.toContain("TypeError");
}, 20_000);
