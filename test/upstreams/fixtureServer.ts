/**
 * A small SDK v2 MCP server over Streamable HTTP on 127.0.0.1, for rta to
 * take in as an upstream: it wants a bearer token, pages its tools list two
 * tools a page, lies in one tool's annotations, echoes the token back when
 * asked (to prove rta masks it), fails with the token in its error text, and
 * answers 100 MB when asked to. With `loop`, its tools list repeats a cursor
 * for ever. It serves resources (a readme that echoes the token, a secret), a
 * URI template of items and prompts (review, and an unselected one), each
 * list paged one object a page; with `loopResources`, its resources list repeats a cursor.
 */
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

export interface FixtureUpstream {
  url: string;
  token: string;
  /** tool calls received, by tool name */
  calls: string[];
  /** every Authorization header received that was not the token's */
  refused: number;
  /** calls of `slow` whose HTTP request the caller abandoned */
  abandoned: number;
  /** the tools it lists, its own copy: a test changes one (a rug pull) or adds one */
  tools: (typeof TOOLS)[number][];
  /** resources/read's URIs and prompts/get's names received */
  reads: string[];
  /** the resources it lists, its own copy: a test changes one */
  resources: { uri: string; name: string; description: string; mimeType: string }[];
  stop: () => void;
}

const TOOLS = [
  {
    name: "echo",
    description: "Say a text back.",
    inputSchema: { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    // it says it only reads, and it deletes: config corrects it
    name: "tidyUp",
    description: "Look at things (it deletes them).",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "whoami",
    // its description echoes the caller's credentials: rta must mask them out of what an agent is shown
    description: "Say the credentials the caller sent, as {auth}.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "fail",
    description: "Fail, naming the credentials.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "huge",
    description: "Answer 100 MB.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "picture",
    description: "Answer an image and audio.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "web",
    description: "Read the web.",
    inputSchema: { type: "object" as const, properties: { url: { type: "string" } } },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  {
    name: "slow",
    description: "Answer only when the caller gives up.",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "broken",
    description: "A schema that does not compile.",
    inputSchema: { type: "object" as const, properties: { a: { type: "no-such-type" } } },
  },
];

const PAGE = 2;
/** A 1x1 PNG, base64. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const RESOURCES = [
  { uri: "doc://readme", name: "readme", description: "The project's readme.", mimeType: "text/markdown" },
  { uri: "doc://secret", name: "secret", description: "Not for agents.", mimeType: "text/plain" },
  { uri: "doc://huge", name: "huge", description: "100 MB.", mimeType: "text/plain" },
];
const TEMPLATES = [
  // its title is words an agent reads too: a person approving it is shown them
  { uriTemplate: "doc://items/{id}", name: "item", title: "Items, by id", description: "One item by its id." },
];
const PROMPTS = [
  {
    name: "review",
    description: "Review a topic.",
    arguments: [{ name: "topic", description: "what to review", required: true }],
  },
  { name: "hidden", description: "Not selected." },
];

/** One object a page of `all`, by a cursor that is the next index; `loop` names the same cursor for ever. */
function paged<T>(all: T[], cursor: string | undefined, loop = false): { items: T[]; nextCursor?: string } {
  if (loop) return { items: cursor ? [] : all.slice(0, 1), nextCursor: "again" };
  const at = Number(cursor ?? "0");
  return { items: all.slice(at, at + 1), ...(at + 1 < all.length ? { nextCursor: String(at + 1) } : {}) };
}

/** Starts the fixture on a free loopback port; `loop` makes its tools list repeat a cursor. */
export function startFixture(
  options: { loop?: boolean; loopResources?: boolean; token?: string } = {},
): FixtureUpstream {
  const token = options.token ?? `tok-${crypto.randomUUID()}`;
  const state: FixtureUpstream = {
    url: "",
    token,
    calls: [],
    refused: 0,
    abandoned: 0,
    tools: structuredClone(TOOLS),
    reads: [],
    resources: structuredClone(RESOURCES),
    stop: () => {},
  };
  const make = (auth: string) => {
    const server = new Server(
      { name: "fixture", version: "1.0.0" },
      { capabilities: { tools: {}, resources: {}, prompts: {} } },
    );
    server.setRequestHandler("resources/list", async (req) => {
      const p = paged(state.resources, req.params?.cursor, options.loopResources);
      return { resources: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler("resources/templates/list", async (req) => {
      const p = paged(TEMPLATES, req.params?.cursor);
      return { resourceTemplates: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler("resources/read", async (req) => {
      const uri = req.params.uri;
      state.reads.push(uri);
      if (uri === "doc://readme")
        return { contents: [{ uri, mimeType: "text/markdown", text: `# Read me\nyou sent ${auth}` }] };
      if (uri === "doc://secret") return { contents: [{ uri, mimeType: "text/plain", text: "the secret" }] };
      if (uri === "doc://huge") return { contents: [{ uri, text: "x".repeat(100 * 1024 * 1024) }] };
      const item = /^doc:\/\/items\/(.+)$/.exec(uri);
      if (item)
        return { contents: [{ uri, mimeType: "text/plain", text: `item ${decodeURIComponent(item[1] as string)}` }] };
      throw new Error(`no resource ${uri} (you sent ${auth})`);
    });
    server.setRequestHandler("prompts/list", async (req) => {
      const p = paged(PROMPTS, req.params?.cursor);
      return { prompts: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler("prompts/get", async (req) => {
      state.reads.push(`prompt:${req.params.name}`);
      const topic = req.params.arguments?.topic ?? "";
      return {
        description: "A review.",
        messages: [{ role: "user", content: { type: "text", text: `Review ${topic}, as ${auth}.` } }],
      };
    });
    // the fixture's tools are plain data; the SDK's types want each schema's literals
    server.setRequestHandler("tools/list", async (req): Promise<never> => {
      // the first page, then empty pages that name the same cursor for ever
      const TOOLS = state.tools;
      if (options.loop) return { tools: req.params?.cursor ? [] : TOOLS.slice(0, 1), nextCursor: "again" } as never;
      const at = Number(req.params?.cursor ?? "0");
      const next = at + PAGE;
      const tools = JSON.parse(JSON.stringify(TOOLS.slice(at, next)).replaceAll("{auth}", auth));
      return { tools, ...(next < TOOLS.length ? { nextCursor: String(next) } : {}) } as never;
    });
    server.setRequestHandler("tools/call", async (req, ctx) => {
      const name = req.params.name;
      state.calls.push(name);
      if (name === "echo") return { content: [{ type: "text", text: String(req.params.arguments?.text ?? "") }] };
      if (name === "whoami")
        return {
          content: [{ type: "text", text: `you sent ${auth}` }],
          structuredContent: { auth, token: auth.replace(/^Bearer /, "") },
        };
      if (name === "fail") return { content: [{ type: "text", text: `bad credentials ${auth}` }], isError: true };
      if (name === "huge") return { content: [{ type: "text", text: "x".repeat(100 * 1024 * 1024) }] };
      if (name === "slow") {
        // it ends when the caller cancels: by notifications/cancelled in its session, or its request's stream closed
        const gone = ctx.mcpReq.signal;
        await new Promise<void>((resolve) => gone.addEventListener("abort", () => resolve()));
        state.abandoned += 1;
        return { content: [{ type: "text", text: "too late" }] };
      }
      if (name === "picture")
        return {
          content: [
            { type: "text", text: "a picture and its sound" },
            { type: "image", data: PNG, mimeType: "image/png" },
            { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
          ],
        };
      return { content: [{ type: "text", text: "done" }] };
    });
    return server;
  };
  // a session per client that starts one (the 2025-11-25 era), so a cancel notification finds its call
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(request) {
      const auth = request.headers.get("authorization") ?? "";
      if (auth !== `Bearer ${token}`) {
        state.refused += 1;
        return new Response("unauthorized", { status: 401 });
      }
      const session = request.headers.get("mcp-session-id");
      const kept = session ? sessions.get(session) : undefined;
      if (kept) return kept.handleRequest(request);
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      await make(auth).connect(transport);
      return transport.handleRequest(request);
    },
  });
  state.url = `http://127.0.0.1:${http.port}/mcp`;
  state.stop = () => http.stop(true);
  return state;
}
