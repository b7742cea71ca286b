/**
 * MCP over Streamable HTTP for a team: Bun's server in front of the SDK's
 * handler, which serves both eras on one endpoint (`/mcp`). The checks in
 * front of it are separate pieces, in this order:
 *
 * 1. the body, counted as it streams: past 4 MiB it is refused with 413
 *    before any header, era or token check reads it (Content-Length is not
 *    trusted alone);
 * 2. Host and Origin, against DNS rebinding: loopback names by default, and
 *    the names --allow-host adds; a bad one gets 403;
 * 3. the bearer token: a missing, wrong, expired or revoked one gets 401 with
 *    nothing about what exists. The token names the agent.
 *
 * `/healthz` (alive) and `/readyz` (store reachable, config readable) need no
 * token and say nothing else.
 */
import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Deps } from "../core/deps.ts";
import { createServer, type ServeContext } from "./server.ts";
import { authenticate } from "./tokens.ts";

/** No model writes four mebibytes of arguments to one call; the same limit as stdio. */
export const HTTP_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_HTTP_ADDRESS = "127.0.0.1:8722";

export interface HttpOptions {
  hostname: string;
  port: number;
  /** host names accepted in Host and Origin beside the loopback ones */
  allowHosts: string[];
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1", "[::1]"];

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** "host:port", "[::1]:8722", ":8722" -> hostname and port. */
export function parseAddress(text: string): { hostname: string; port: number } {
  const m = text.match(/^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/);
  const hostname = m?.[1] ?? (m?.[2] || "127.0.0.1");
  const port = Number(m?.[3] ?? 8722);
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`not an address: ${text}`);
  return { hostname, port };
}

/** The host name of a Host header or an Origin URL, without its port. */
function nameOf(hostHeader: string): string {
  const bracketed = hostHeader.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed) return bracketed[1] as string;
  return hostHeader.replace(/:\d+$/, "").toLowerCase();
}

/** Reads a body up to the limit as it streams; undefined when it passes the limit. */
async function boundedBody(req: Request): Promise<Uint8Array | undefined> {
  if (!req.body) return new Uint8Array(0);
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > HTTP_BODY_LIMIT_BYTES) return undefined;
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > HTTP_BODY_LIMIT_BYTES) {
      await reader.cancel();
      return undefined;
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** The fetch function the HTTP server runs; exported for tests that drive it without a socket. */
export function httpFetch(ctx: ServeContext, opts: HttpOptions): (req: Request) => Promise<Response> {
  const allowed = new Set([...LOOPBACK_NAMES, ...opts.allowHosts.map((h) => h.toLowerCase())]);
  const handler = createMcpHandler(() => createServer(ctx), { maxRequestBodySize: HTTP_BODY_LIMIT_BYTES });
  return async (req) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return rpcError(400, -32600, "the request's Host header is not a host name");
    }
    if (url.pathname === "/healthz") return new Response("ok\n");
    if (url.pathname === "/readyz")
      return ready(ctx.deps) ? new Response("ready\n") : new Response("not ready\n", { status: 503 });
    if (url.pathname !== "/mcp") return new Response("not found\n", { status: 404 });
    // 1. The body, before anything reads a header.
    const body = req.method === "POST" ? await boundedBody(req) : undefined;
    if (req.method === "POST" && body === undefined) {
      return rpcError(413, -32600, `the request body is larger than ${HTTP_BODY_LIMIT_BYTES / 1024 / 1024} MiB`);
    }
    // 2. Host and Origin.
    const host = req.headers.get("host");
    if (!host || !allowed.has(nameOf(host))) return rpcError(403, -32000, "this host name is not served here");
    const origin = req.headers.get("origin");
    if (origin !== null) {
      let originHost = "";
      try {
        originHost = new URL(origin).hostname.replace(/^\[|\]$/g, "").toLowerCase();
      } catch {
        // an Origin that is not a URL is refused below
      }
      if (!allowed.has(originHost) && !allowed.has(`[${originHost}]`))
        return rpcError(403, -32000, "requests from this origin are not served here");
    }
    // 3. The token, which names the agent.
    const token = authenticate(req.headers.get("authorization"), ctx.deps.gate(), ctx.deps.clock.now());
    if (!token) return rpcError(401, -32001, "unauthorized", { "www-authenticate": 'Bearer realm="rta"' });
    const forwarded = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      ...(body !== undefined ? { body } : {}),
    });
    const authInfo = { token: "-", clientId: token.agent, scopes: [], extra: { agent: token.agent } };
    let parsedBody: unknown;
    if (body !== undefined && body.length > 0) {
      try {
        parsedBody = JSON.parse(new TextDecoder().decode(body));
      } catch {
        parsedBody = undefined; // the handler answers a parse error itself
      }
    }
    // A 2025-11-25 client that opens with initialize gets a session of its own (Mcp-Session-Id); the rest,
    // and every 2026-07-28 request, are served statelessly by the SDK's handler.
    const sessionId = req.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (!session || session.agent !== token.agent)
        return rpcError(404, -32001, "no such session: start again with initialize");
      session.lastUsed = Date.now();
      return session.transport.handleRequest(forwarded, { authInfo, parsedBody });
    }
    if (req.method === "POST" && isInitialize(parsedBody) && (await isLegacyRequest(forwarded, parsedBody))) {
      return openSession(forwarded, parsedBody, authInfo, token.agent);
    }
    return handler.fetch(forwarded, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
  };

  async function openSession(req: Request, parsedBody: unknown, authInfo: AuthInfo, agent: string): Promise<Response> {
    evictSessions();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, agent, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await createServer(ctx).connect(transport);
    return transport.handleRequest(req, { authInfo, parsedBody });
  }
}

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  /** the agent whose token opened it: no other token may use it */
  agent: string;
  lastUsed: number;
}

/** Sessions of 2025-11-25 clients, by id. */
const sessions = new Map<string, LegacySession>();
/** At most this many sessions are kept; past it the least recently used is closed. */
const MAX_SESSIONS = 256;
/** A session unused this long is closed. */
const SESSION_IDLE_MS = 30 * 60 * 1000;

function evictSessions(): void {
  const now = Date.now();
  for (const [id, s] of sessions) {
    if (now - s.lastUsed > SESSION_IDLE_MS) {
      sessions.delete(id);
      void s.transport.close();
    }
  }
  while (sessions.size >= MAX_SESSIONS) {
    const oldest = [...sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
    if (!oldest) break;
    sessions.delete(oldest[0]);
    void oldest[1].transport.close();
  }
}

function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}

function ready(deps: Deps): boolean {
  try {
    deps.gate().tokens();
    return deps.config.current().kind !== "unreadable";
  } catch {
    return false;
  }
}
