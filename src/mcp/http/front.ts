/**
 * MCP over Streamable HTTP for a team: the fetch function Bun's server runs,
 * in front of the SDK's handler, which serves both eras on one endpoint
 * (`/mcp`). The checks in front of it are named functions (checks.ts),
 * composed here in this order, and the first three read headers only, so a
 * caller that fails them holds no byte of body:
 *
 * 1. a stopping server answers 503, so calls under way can finish;
 * 2. Host and Origin, against DNS rebinding: loopback names by default, and
 *    the names --allow-host adds; a bad one gets 403;
 * 3. the bearer token: a missing, wrong, expired or revoked one gets 401 with
 *    nothing about what exists. The token names the agent;
 * 4. the agent's share of requests and body bytes in flight, and the
 *    server's total (limits.ts): 429 or 503 with Retry-After;
 * 5. the body, counted as it streams: past 4 MiB it is refused with 413
 *    (Content-Length is not trusted alone), and one that has not arrived
 *    within BODY_DEADLINE_MS gets 408;
 * 6. the parsed body: one holding more than REQUEST_VALUE_LIMIT values gets
 *    400 before the SDK checks it against a schema, issue by issue;
 * 7. the 2025-11-25 session a request names, which only the token's own
 *    agent may use: 404 for any other.
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
  createMcpHandler,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { RtaError } from "../../core/errors.ts";
import type { Deps } from "../../gate/deps.ts";
import { REQUEST_LIMIT_BYTES } from "../requestValues.ts";
import { CallsInFlight } from "../serve/callsInFlight.ts";
import { type Changing, createServer, type ServeContext } from "../server.ts";
import { Subscriptions } from "../subscriptions.ts";
import { authenticate } from "../tokens.ts";
import { CLOSE, opened, refused, rpcError, whenSent } from "./answers.ts";
import {
  bodyLimit,
  type Check,
  type Exchange,
  hostCheck,
  LOOPBACK_NAMES,
  originCheck,
  STORE_AWAY,
  sessionCheck,
  tokenCheck,
  valueLimit,
  whileServing,
} from "./checks.ts";
import { InFlight } from "./limits.ts";
import { keepOnAnswer, resumer, sharedRows } from "./sessionResume.ts";
import { LegacySessions, MAX_SESSIONS, SESSIONS_PER_AGENT, watchSessions } from "./sessions.ts";

export interface HttpFront {
  /**
   * The fetch function the HTTP server runs. `server`, Bun's, lets a request that passed every check outlast the
   * server's idle timeout: a long call's answer, or a session's GET stream, may be silent for longer.
   */
  fetch: (req: Request, server?: { timeout(req: Request, seconds: number): void }) => Promise<Response>;
  /** tool calls under way, for a stopping server to let finish */
  calls: CallsInFlight;
  /** From now on every request to /mcp is answered 503 and its connection closed. */
  stopAccepting: () => void;
  /** Closes every 2025-11-25 session held here (their open streams included); a shared store keeps their rows. */
  closeSessions: () => void;
}

/**
 * The HTTP front for a server's context: /healthz and /readyz, 404 for any
 * other path but /mcp, and for /mcp the checks in order, then the SDK's
 * handler or a 2025-11-25 session of the token's own. `allowHosts` are the
 * names Host and Origin may carry beside the loopback ones.
 */
export function httpFront(ctx: ServeContext, allowHosts: string[]): HttpFront {
  const allowed = new Set([...LOOPBACK_NAMES, ...allowHosts.map((h) => h.toLowerCase())]);
  const calls = new CallsInFlight();
  const make = (): Server => calls.track(createServer(ctx));
  const handler = createMcpHandler(make, { maxRequestBodySize: REQUEST_LIMIT_BYTES });
  // a catalogue that takes up a person's approvals says when its tools change: each 2026-07-28 listen that asked
  // is told through the handler, and each 2025-11-25 session on its own stream (openSession)
  const live = (ctx.catalogue as Partial<Changing>).onChange?.bind(ctx.catalogue);
  live?.(() => handler.notify.toolsChanged());
  const sessions = new LegacySessions(
    ctx.deps.clock,
    { perAgent: SESSIONS_PER_AGENT, total: MAX_SESSIONS },
    sharedRows(ctx.deps),
  );
  if (ctx.operator) watchSessions(sessions, ctx.operator);
  // on a shared store a session's subscriptions are told wherever its stream is, and end with the session
  const shared = ctx.leases?.sessions;
  shared?.use({
    streaming: () => sessions.streaming(),
    deliver: (id, message) => sessions.deliver(id, message),
    end: (id) => sessions.lost(id),
  });
  if (shared) sessions.ended = (id) => shared.ended(id);
  const subscriptionsOf = new WeakMap<WebStandardStreamableHTTPServerTransport, Subscriptions>();
  const resume = resumer(sessions, attach);
  let stopping = false;
  const checks: Check[] = [
    whileServing(() => stopping),
    hostCheck(allowed),
    originCheck(allowed),
    tokenCheck((header) => authenticate(header, ctx.deps.gate(), ctx.deps.clock.now())?.agent),
    bodyLimit(new InFlight()),
    valueLimit,
    sessionCheck(sessions, resume),
  ];

  const fetch: HttpFront["fetch"] = async (req, server) => {
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
    const x: Exchange = { req };
    try {
      let answer: Response | undefined;
      for (const check of checks) {
        const said = check(x);
        answer = said instanceof Promise ? await said : said;
        if (answer) break;
      }
      if (!answer) {
        // Bun cuts a connection silent for its idle timeout (10 s), a request in wait for its answer included: a
        // call that runs longer, or a stream with nothing to say yet, is not idle. Before here (a body still coming,
        // no token yet) the timeout stands.
        server?.timeout(req, 0);
        answer = await serve(x);
      }
      // The body's bytes and the agent's slot are given back once the answer (a refusal or the handler's) is sent.
      return x.ticket ? whenSent(answer, () => x.ticket?.release()) : answer;
    } catch (err) {
      x.ticket?.release();
      // a shared store gone away mid-request (a DELETE's row, a session's touch): try again, as at the token check
      if (err instanceof RtaError && err.code === "core.store.unavailable") return STORE_AWAY();
      throw err;
    }
  };

  /**
   * A request that passed every check. A 2025-11-25 client that opens with
   * initialize gets a session of its own (Mcp-Session-Id), which only its
   * token may use; the rest, and every 2026-07-28 request, are served
   * statelessly by the SDK's handler.
   */
  async function serve(x: Exchange): Promise<Response> {
    const { session, body, parsedBody } = x;
    const authInfo = x.authInfo as NonNullable<Exchange["authInfo"]>;
    // The body was read to be measured: the handler is given a request that carries it again.
    const req =
      body === undefined ? x.req : new Request(x.req.url, { method: x.req.method, headers: x.req.headers, body });
    if (session) {
      // An open GET stream lasts as long as the session: it does not make the session busy.
      if (req.method === "GET") {
        const res = await session.transport.handleRequest(req, { authInfo });
        if (!res.ok || !res.body) return res;
        session.streams++;
        // its subscriptions are held where its stream is
        void shared?.takeBack(session.id, subscriptionsOf.get(session.transport));
        return whenSent(opened(res), () => session.streams--);
      }
      session.busy++;
      let res: Response;
      try {
        res = await session.transport.handleRequest(req, { authInfo, parsedBody });
      } catch (err) {
        session.busy--;
        throw err;
      }
      // A client gone before its answer cancels the calls it sent: they would run on, holding no slot.
      return whenSent(
        res,
        () => session.busy--,
        () => cancelRequests(session.transport, parsedBody),
      );
    }
    if (body !== undefined && isInitialize(parsedBody) && (await isLegacyRequest(req, parsedBody)))
      return openSession(req, parsedBody, authInfo, x.agent as string);
    return handler.fetch(req, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
  }

  /**
   * Session `id`'s server, connected to its transport: resource subscriptions, told when the tools change. One
   * built again (`resumed`) holds the subscriptions its client made through other replicas (a shared store).
   */
  async function attach(transport: WebStandardStreamableHTTPServerTransport, id: string, resumed = false) {
    // a session's client may subscribe to resources, as a stdio client may: it has a stream to be told on
    const subscriptions = new Subscriptions(undefined, id);
    subscriptionsOf.set(transport, subscriptions);
    const server = calls.track(createServer({ ...ctx, subscriptions }));
    await server.connect(transport);
    if (resumed) await shared?.takeBack(id, subscriptions);
    const stop = live?.(() => void server.sendToolListChanged().catch(() => {}));
    const closed = server.onclose;
    server.onclose = () => {
      stop?.();
      subscriptions.close();
      shared?.letGo(id);
      closed?.();
    };
  }

  async function openSession(
    req: Request,
    parsedBody: unknown,
    authInfo: NonNullable<Exchange["authInfo"]>,
    agent: string,
  ): Promise<Response> {
    let session: ReturnType<LegacySessions["make"]>;
    try {
      session = sessions.make(
        agent,
        (id) =>
          new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => id,
            onsessionclosed: (closed) => sessions.forget(closed),
          }),
      );
    } catch {
      return STORE_AWAY();
    }
    if ("status" in session) return refused(session);
    const { id, params } = parsedBody as { id: unknown; params: unknown };
    keepOnAnswer(session, sessions, { id, params }, () => ctx.deps.clock.now());
    await attach(session.transport, session.id);
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

/**
 * Tells a session's server that the requests in a body (one message or a
 * batch) are cancelled, as their client would: its calls stop at their next
 * check and are recorded so. Messages that are no request are left alone.
 */
function cancelRequests(transport: WebStandardStreamableHTTPServerTransport, body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    const { id, method } = (typeof message === "object" && message !== null ? message : {}) as {
      id?: unknown;
      method?: unknown;
    };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) continue;
    transport.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: "the client went away" },
    });
  }
}

function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}

/** /readyz: the grant store answers and config.toml reads. */
function ready(deps: Deps): boolean {
  try {
    deps.gate().tokens();
    return deps.config.current().kind !== "unreadable";
  } catch {
    return false;
  }
}
