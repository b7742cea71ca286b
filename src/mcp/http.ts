/**
 * MCP over Streamable HTTP for a team: Bun's server in front of the SDK's
 * handler, which serves both eras on one endpoint (`/mcp`). The checks in
 * front of it are separate pieces, in this order, and the first three read
 * headers only, so a caller that fails them holds no byte of body:
 *
 * 1. a stopping server answers 503, so calls under way can finish;
 * 2. Host and Origin, against DNS rebinding: loopback names by default, and
 *    the names --allow-host adds; a bad one gets 403;
 * 3. the bearer token: a missing, wrong, expired or revoked one gets 401 with
 *    nothing about what exists. The token names the agent;
 * 4. the agent's share of requests and body bytes in flight, and the
 *    server's total (httpLimits.ts): 429 or 503 with Retry-After;
 * 5. the body, counted as it streams: past 4 MiB it is refused with 413
 *    (Content-Length is not trusted alone), and one that has not arrived
 *    within BODY_DEADLINE_MS gets 408;
 * 6. the parsed body: one holding more than REQUEST_VALUE_LIMIT values gets
 *    400 before the SDK checks it against a schema, issue by issue.
 *
 * Every refusal closes its connection, so a refused caller holds no socket
 * either. Bun itself closes a connection whose headers have not arrived
 * within its idle timeout (10 s; the timer is not pushed back by bytes that
 * trickle in), before any of this runs.
 *
 * `/healthz` (alive) and `/readyz` (store reachable, config readable) need no
 * token and say nothing else.
 */
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Deps } from "../gate/deps.ts";
import { CallsInFlight } from "./callsInFlight.ts";
import {
  HTTP_BODY_LIMIT_BYTES,
  holdsTooManyValues,
  InFlight,
  RETRY_AFTER_SECONDS,
  type Refusal,
  readBody,
  TOO_MANY_VALUES,
} from "./httpLimits.ts";
import { LegacySessions } from "./httpSessions.ts";
import { createServer, type ServeContext } from "./server.ts";
import { authenticate } from "./tokens.ts";

export { HTTP_BODY_LIMIT_BYTES } from "./httpLimits.ts";
export const DEFAULT_HTTP_ADDRESS = "127.0.0.1:8722";

export interface HttpOptions {
  hostname: string;
  port: number;
  /** host names accepted in Host and Origin beside the loopback ones */
  allowHosts: string[];
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1", "[::1]"];

/** A refusal closes its connection: whatever the caller was still sending is not read. */
const CLOSE = { connection: "close" };
const RETRY = { ...CLOSE, "retry-after": String(RETRY_AFTER_SECONDS) };

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function refused(r: Refusal): Response {
  return rpcError(r.status, -32000, r.message, RETRY);
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

/** Host and Origin against the names served here; the answer to give, or undefined when both pass. */
function checkHostAndOrigin(req: Request, allowed: Set<string>): Response | undefined {
  const host = req.headers.get("host");
  if (!host || !allowed.has(nameOf(host))) return rpcError(403, -32000, "this host name is not served here", CLOSE);
  const origin = req.headers.get("origin");
  if (origin === null) return undefined;
  let originHost = "";
  try {
    originHost = new URL(origin).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    // an Origin that is not a URL is refused below
  }
  if (!allowed.has(originHost) && !allowed.has(`[${originHost}]`))
    return rpcError(403, -32000, "requests from this origin are not served here", CLOSE);
  return undefined;
}

/**
 * The same response, calling `done` once its body has been sent or its client
 * has gone: that is when what the request held may be given back.
 */
function whenSent(res: Response, done: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          done();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

export interface HttpFront {
  /** the fetch function the HTTP server runs */
  fetch: (req: Request) => Promise<Response>;
  /** tool calls under way, for a stopping server to let finish */
  calls: CallsInFlight;
  /** From now on every request to /mcp is answered 503 and its connection closed. */
  stopAccepting: () => void;
  /** Closes every 2025-11-25 session (their open streams included). */
  closeSessions: () => void;
}

/** The HTTP front: the checks in order, then the SDK's handler, or a 2025-11-25 session of the token's own. */
export function httpFront(ctx: ServeContext, opts: HttpOptions): HttpFront {
  const allowed = new Set([...LOOPBACK_NAMES, ...opts.allowHosts.map((h) => h.toLowerCase())]);
  const calls = new CallsInFlight();
  const make = (): Server => calls.track(createServer(ctx));
  const handler = createMcpHandler(make, { maxRequestBodySize: HTTP_BODY_LIMIT_BYTES });
  const inFlight = new InFlight();
  const sessions = new LegacySessions();
  let stopping = false;

  const fetch = async (req: Request): Promise<Response> => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return rpcError(400, -32600, "the request's Host header is not a host name", CLOSE);
    }
    if (url.pathname === "/healthz") return new Response("ok\n");
    if (url.pathname === "/readyz")
      return ready(ctx.deps) ? new Response("ready\n") : new Response("not ready\n", { status: 503 });
    if (url.pathname !== "/mcp") return new Response("not found\n", { status: 404, headers: CLOSE });
    // 1. A stopping server takes nothing new.
    if (stopping) return rpcError(503, -32000, "the server is stopping", RETRY);
    // 2. Host and Origin, from the headers alone.
    const badPlace = checkHostAndOrigin(req, allowed);
    if (badPlace) return badPlace;
    // 3. The token, which names the agent.
    const token = authenticate(req.headers.get("authorization"), ctx.deps.gate(), ctx.deps.clock.now());
    if (!token) return rpcError(401, -32001, "unauthorized", { ...CLOSE, "www-authenticate": 'Bearer realm="rta"' });
    const authInfo = { token: "-", clientId: token.agent, scopes: [], extra: { agent: token.agent } };
    if (req.method !== "POST") return route(req, undefined, undefined, authInfo, token.agent);
    // 4. The agent's share and the server's total, then 5. the body.
    const ticket = inFlight.admit(token.agent);
    if ("status" in ticket) return refused(ticket);
    let answered: Response | undefined;
    try {
      const read = await readBody(req, ticket);
      if (read.kind === "toolarge")
        answered = rpcError(
          413,
          -32600,
          `the request body is larger than ${HTTP_BODY_LIMIT_BYTES / 1024 / 1024} MiB`,
          CLOSE,
        );
      else if (read.kind === "refused") answered = refused(read.refusal);
      else if (read.kind === "late") answered = rpcError(408, -32000, "the request body did not arrive in time", CLOSE);
      else if (read.kind === "gone") answered = new Response(null, { status: 400, headers: CLOSE });
      else {
        let parsedBody: unknown;
        if (read.body.length > 0) {
          try {
            parsedBody = JSON.parse(new TextDecoder().decode(read.body));
          } catch {
            parsedBody = undefined; // the handler answers a parse error itself
          }
        }
        if (holdsTooManyValues(parsedBody)) answered = rpcError(400, -32600, TOO_MANY_VALUES);
        else {
          const forwarded = new Request(req.url, { method: req.method, headers: req.headers, body: read.body });
          answered = await route(forwarded, read.body, parsedBody, authInfo, token.agent);
        }
      }
    } catch (err) {
      ticket.release();
      throw err;
    }
    return whenSent(answered, () => ticket.release());
  };

  /**
   * A 2025-11-25 client that opens with initialize gets a session of its own
   * (Mcp-Session-Id), which only its token may use; the rest, and every
   * 2026-07-28 request, are served statelessly by the SDK's handler.
   */
  async function route(
    req: Request,
    body: Uint8Array | undefined,
    parsedBody: unknown,
    authInfo: AuthInfo,
    agent: string,
  ): Promise<Response> {
    const sessionId = req.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.use(sessionId, agent);
      if (!session) return rpcError(404, -32001, "no such session: start again with initialize");
      // An open GET stream lasts as long as the session: it does not make the session busy.
      if (req.method === "GET") return session.transport.handleRequest(req, { authInfo });
      session.busy++;
      let res: Response;
      try {
        res = await session.transport.handleRequest(req, { authInfo, parsedBody });
      } catch (err) {
        session.busy--;
        throw err;
      }
      return whenSent(res, () => session.busy--);
    }
    if (body !== undefined && isInitialize(parsedBody) && (await isLegacyRequest(req, parsedBody)))
      return openSession(req, parsedBody, authInfo, agent);
    return handler.fetch(req, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
  }

  async function openSession(req: Request, parsedBody: unknown, authInfo: AuthInfo, agent: string): Promise<Response> {
    const session = sessions.make(
      agent,
      (id) =>
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => id,
          onsessionclosed: (closed) => sessions.forget(closed),
        }),
    );
    if ("status" in session) return refused(session);
    await make().connect(session.transport);
    const res = await session.transport.handleRequest(req, { authInfo, parsedBody });
    // An initialize the transport did not take leaves no session behind.
    if (session.transport.sessionId === undefined) {
      sessions.forget(session.id);
      void session.transport.close().catch(() => {});
    }
    return res;
  }

  return {
    fetch,
    calls,
    stopAccepting: () => {
      stopping = true;
    },
    closeSessions: () => sessions.closeAll(),
  };
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
