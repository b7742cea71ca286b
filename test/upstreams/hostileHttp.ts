/**
 * A hostile Streamable HTTP upstream on 127.0.0.1, raw JSON-RPC: it answers
 * each tools/call with 202 and sends the answer, `size` bytes of text, on
 * the stream the client's GET opened, where no POST's bound applies.
 */

export interface HostileHttp {
  url: string;
  stop: () => void;
}

/** Starts it on a free loopback port; refuses nothing. */
export function startHostileHttp(size: number): HostileHttp {
  const encoder = new TextEncoder();
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  const waiting: string[] = [];
  const push = (event: string) => {
    const open = streams.at(-1);
    if (open) open.enqueue(encoder.encode(event));
    else waiting.push(event);
  };
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      if (request.method === "GET") {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            streams.push(controller);
            for (const event of waiting.splice(0)) controller.enqueue(encoder.encode(event));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const m = (await request.json()) as { id?: number; method?: string; params?: Record<string, unknown> };
      if (m.id === undefined) return new Response(null, { status: 202 });
      if (m.method === "initialize")
        return Response.json(
          {
            jsonrpc: "2.0",
            id: m.id,
            result: {
              protocolVersion: m.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "hostile", version: "1" },
            },
          },
          { headers: { "mcp-session-id": "one" } },
        );
      if (m.method === "tools/list") {
        const tools = [{ name: "big", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }];
        return Response.json({ jsonrpc: "2.0", id: m.id, result: { tools } });
      }
      if (m.method === "tools/call") {
        const text = "y".repeat(size);
        push(`data: {"jsonrpc":"2.0","id":${m.id},"result":{"content":[{"type":"text","text":"${text}"}]}}\n\n`);
        return new Response(null, { status: 202 });
      }
      return Response.json({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
    },
  });
  return { url: `http://127.0.0.1:${http.port}/mcp`, stop: () => http.stop(true) };
}
