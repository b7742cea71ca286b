/**
 * An MCP upstream's answers, raw JSON-RPC (holeyStdio.ts serves them on stdio,
 * startHoleyHttp over Streamable HTTP on 127.0.0.1), offering what an attacker would: schemas that cost ajv seconds to compile
 * (3,000 properties beside a `$ref`; an `allOf` of 2,000 `not`s), a `$ref` to
 * a schema elsewhere, an SVG image, and an image whose data is not base64.
 * `ok` answers with the names of its env's variables.
 */
const props = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: "string" }]));
const PNG = "iVBORw0KGgo=";

const TOOLS = [
  {
    name: "ok",
    description: "Say the env's names.",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: true },
  },
  {
    name: "costly",
    inputSchema: {
      type: "object",
      properties: { ...props, r: { $ref: "#/definitions/x" } },
      definitions: { x: { type: "string" } },
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "allof",
    inputSchema: { type: "object", allOf: Array.from({ length: 2000 }, (_, i) => ({ not: { const: i } })) },
    annotations: { readOnlyHint: true },
  },
  {
    name: "remote",
    inputSchema: { type: "object", properties: { a: { $ref: "https://schemas.example.com/a.json" } } },
    annotations: { readOnlyHint: true },
  },
  { name: "svg", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "badpng", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
];

function result(name: unknown): unknown {
  if (name === "svg")
    return {
      content: [{ type: "image", mimeType: "image/svg+xml", data: btoa("<svg><script>alert(1)</script></svg>") }],
    };
  if (name === "badpng") return { content: [{ type: "image", mimeType: "image/png", data: `!!${PNG}` }] };
  const names = Object.keys(process.env).sort().join(" ");
  return { content: [{ type: "text", text: `env: ${names}` }] };
}

export type Message = { id?: number | string; method?: string; params?: Record<string, unknown> };

/** The message answering `m` (a request), or undefined for a notification. */
export function holeyAnswer(m: Message): unknown {
  if (m.id === undefined) return undefined;
  if (m.method === "initialize")
    return {
      jsonrpc: "2.0",
      id: m.id,
      result: {
        protocolVersion: m.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "holey", version: "1" },
      },
    };
  if (m.method === "tools/list") return { jsonrpc: "2.0", id: m.id, result: { tools: TOOLS } };
  if (m.method === "tools/call") return { jsonrpc: "2.0", id: m.id, result: result(m.params?.name) };
  return { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } };
}

/** Serves the answers over Streamable HTTP on a free loopback port (no GET stream); refuses nothing. */
export function startHoleyHttp(): { url: string; stop: () => void } {
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const reply = holeyAnswer((await request.json()) as Message);
      return reply === undefined ? new Response(null, { status: 202 }) : Response.json(reply);
    },
  });
  return { url: `http://127.0.0.1:${http.port}/mcp`, stop: () => http.stop(true) };
}
