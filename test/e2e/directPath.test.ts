/**
 * End to end: the stdio direct path answers a tools/call only as the SDK
 * would, on dist/rta itself: a client name that is not text is answered as
 * the SDK answers it, without ending the server.
 * Each request waits for the answer to the one before, so the order is fixed.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { RTA } from "../support/rta.ts";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";
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
  const out: Answer[] = [];
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
    wake();
  })();
  let seen = 0;
  const ask = async (text: string, n = 1): Promise<Answer[]> => {
    proc.stdin.write(text);
    await proc.stdin.flush();
    while (out.length < seen + n && proc.exitCode === null) await new Promise<void>((resolve) => (wake = resolve));
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
