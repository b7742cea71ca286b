/**
 * A stdio MCP upstream whose schemas cost ajv's own checks time past any
 * bound, raw JSON-RPC run by bun: `choose` takes a draft-07 enum of 400,000
 * values (ajv's meta-schema check compared each with every other), `match` a
 * pattern RE2 steps 416 instructions a character on. A call is answered with
 * its arguments' size.
 */
const TOOLS = [
  {
    name: "choose",
    inputSchema: {
      type: "object",
      properties: { n: { type: "array", items: { enum: Array.from({ length: 400_000 }, (_, i) => i) } } },
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "match",
    inputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(?:[ab]*a[ab]{100}){4}$" } } },
    annotations: { readOnlyHint: true },
  },
];

type Message = { id?: number | string; method?: string; params?: Record<string, unknown> };

function answer(m: Message): unknown {
  if (m.id === undefined) return undefined;
  const result =
    m.method === "initialize"
      ? {
          protocolVersion: m.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "costly", version: "1" },
        }
      : m.method === "tools/list"
        ? { tools: TOOLS }
        : m.method === "tools/call"
          ? { content: [{ type: "text", text: `${JSON.stringify(m.params?.arguments ?? {}).length} bytes` }] }
          : undefined;
  if (result === undefined) return { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } };
  return { jsonrpc: "2.0", id: m.id, result };
}

let carry = "";
process.stdin.on("data", (chunk: Buffer) => {
  carry += chunk.toString("utf8");
  for (let nl = carry.indexOf("\n"); nl !== -1; nl = carry.indexOf("\n")) {
    const line = carry.slice(0, nl);
    carry = carry.slice(nl + 1);
    const reply = line.trim() === "" ? undefined : answer(JSON.parse(line) as Message);
    if (reply !== undefined) process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
});
process.stdin.on("end", () => process.exit(0));
