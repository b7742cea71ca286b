/**
 * The checks in front of the MCP handler, each a named function of one
 * request, composed in order by front.ts (Hono-style: the first that answers
 * ends the request). Each either answers (a refusal, with the words and
 * headers a client has always been given) or passes, noting on the Exchange
 * what it learnt for the checks after it.
 *
 * The order is part of the contract. The ones that read headers alone come
 * first (stopping, Host, Origin, the token), so a caller that fails them
 * holds no byte of body and no slot; then the body, within the agent's share
 * and the limit; then its values; then the 2025-11-25 session it names.
 *
 * Origin is checked by the SDK's validateOriginHeader. Host is not: the SDK's
 * validateHostHeader reads the header through the URL parser, which turns
 * `127.1`, `[0:0::1]` or `x@localhost` into a loopback name, and rta has
 * always refused a Host it does not find as written.
 */
import { type AuthInfo, type JSONRPCMessage, validateOriginHeader } from "@modelcontextprotocol/server";
import type { SessionRow } from "../../gate/store/pgSessions.ts";
import { isRequest } from "../messageKinds.ts";
import { holdsTooManyValues, REQUEST_LIMIT_BYTES, TOO_MANY_VALUES } from "../requestValues.ts";
import { CLOSE, RETRY, refused, rpcError } from "./answers.ts";
import { type InFlight, readBody, type Ticket } from "./limits.ts";
import type { LegacySession, LegacySessions } from "./sessions.ts";

/** Builds again, on this replica, the session a shared store's row holds; undefined when it cannot. */
export type Resume = (row: SessionRow, req: Request, authInfo: AuthInfo) => Promise<LegacySession | undefined>;

/** What the checks learn of one request as it passes them. */
export interface Exchange {
  req: Request;
  /** the agent the token names: set by the token check */
  agent?: string;
  authInfo?: AuthInfo;
  /** the request's slot and body bytes, given back once its answer is sent: set by the body check */
  ticket?: Ticket;
  /** the body as read (POST only): set by the body check */
  body?: Uint8Array;
  /** the body parsed, or undefined when it is not JSON (the handler answers that itself) */
  parsedBody?: unknown;
  /** the 2025-11-25 session the request names: set by the session check */
  session?: LegacySession;
}

/** One check: an answer ends the request; undefined passes it on. */
export type Check = (x: Exchange) => Response | undefined | Promise<Response | undefined>;

/** Host names a loopback server answers to, as a Host header or an Origin may carry them. */
export const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1", "[::1]"];

/** Refuses every request with 503 (and Retry-After) once `stopping()` says the server is stopping; else passes. */
export function whileServing(stopping: () => boolean): Check {
  return () => (stopping() ? rpcError(503, -32000, "the server is stopping", RETRY) : undefined);
}

/** The host name of a Host header, without its port; a bracketed IPv6 name loses its brackets and keeps its case. */
function nameOf(hostHeader: string): string {
  const bracketed = hostHeader.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed) return bracketed[1] as string;
  return hostHeader.replace(/:\d+$/, "").toLowerCase();
}

/**
 * Against DNS rebinding: refuses with 403 a request whose Host header is
 * missing or names no host in `allowed` (lowercase names; an IPv6 one with or
 * without brackets), compared as written, port aside.
 */
export function hostCheck(allowed: Set<string>): Check {
  return ({ req }) => {
    const host = req.headers.get("host");
    if (!host || !allowed.has(nameOf(host))) return rpcError(403, -32000, "this host name is not served here", CLOSE);
    return undefined;
  };
}

/**
 * The names the SDK's Origin check is given for the names rta allows: each
 * with and without the brackets an IPv6 name is written in, and no
 * `scheme://*` item, which the SDK would read as every origin of a scheme:
 * --allow-host names a host, never a kind of origin.
 */
function originNames(allowed: Set<string>): string[] {
  const names = new Set<string>();
  for (const name of allowed) {
    if (name.endsWith("//*")) continue;
    names.add(name);
    names.add(`[${name}]`);
    if (name.startsWith("[") && name.endsWith("]")) names.add(name.slice(1, -1));
  }
  return [...names];
}

/**
 * Against cross-site requests: refuses with 403 a request whose Origin is
 * present and is not a URL whose host is in `allowed` (as for hostCheck, any
 * port and scheme). No Origin passes: only browsers send one. An empty one
 * is refused: the SDK would let it pass as if absent.
 */
export function originCheck(allowed: Set<string>): Check {
  const names = originNames(allowed);
  return ({ req }) => {
    const origin = req.headers.get("origin");
    if (origin === null) return undefined;
    // Lowercased first: rta compares host names in lowercase, and the URL parser keeps the case of some.
    if (origin !== "" && validateOriginHeader(origin.toLowerCase(), names).ok) return undefined;
    return rpcError(403, -32000, "requests from this origin are not served here", CLOSE);
  };
}

/**
 * The bearer token: refuses with 401 (and WWW-Authenticate) a request whose
 * Authorization header `agentOf` does not take, saying nothing of what
 * exists; else notes the agent the token names. A store that cannot be asked
 * (a shared one gone away) gets 503 with Retry-After, as a replica that cannot
 * reach its store answers everything else.
 */
export function tokenCheck(agentOf: (authorization: string | null) => string | undefined): Check {
  return (x) => {
    let agent: string | undefined;
    try {
      agent = agentOf(x.req.headers.get("authorization"));
    } catch {
      return STORE_AWAY();
    }
    if (agent === undefined)
      return rpcError(401, -32001, "unauthorized", { ...CLOSE, "www-authenticate": 'Bearer realm="rta"' });
    x.agent = agent;
    x.authInfo = { token: "-", clientId: agent, scopes: [], extra: { agent } };
    return undefined;
  };
}

/**
 * A POST's body, within the agent's share of requests and bytes in flight
 * and the server's total (429 or 503 with Retry-After), counted as it
 * streams: past REQUEST_LIMIT_BYTES 413, not all there within the deadline
 * 408, its client gone 400. Notes the ticket (to give back once the answer is
 * sent) and the body. Any other method passes untouched. Runs after the
 * token check.
 */
export function bodyLimit(inFlight: InFlight): Check {
  return async (x) => {
    if (x.req.method !== "POST") return undefined;
    const ticket = inFlight.admit(x.agent as string);
    if ("status" in ticket) return refused(ticket);
    x.ticket = ticket;
    const read = await readBody(x.req, ticket);
    switch (read.kind) {
      case "read":
        if (ticket.past && !holdsNoRequest(read.body)) return refused(ticket.tooMany());
        x.body = read.body;
        return undefined;
      case "toolarge":
        return rpcError(413, -32600, `the request body is larger than ${REQUEST_LIMIT_BYTES / 1024 / 1024} MiB`, CLOSE);
      case "refused":
        return refused(read.refusal);
      case "late":
        return rpcError(408, -32000, "the request body did not arrive in time", CLOSE);
      case "gone":
        return new Response(null, { status: 400, headers: CLOSE });
    }
  };
}

const decoder = new TextDecoder();

/** Whether a body is JSON-RPC messages none of which is a request: notifications (a cancellation) and answers. */
function holdsNoRequest(body: Uint8Array): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(body));
  } catch {
    return false;
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.every((m) => m !== null && typeof m === "object" && !isRequest(m as JSONRPCMessage));
}

/**
 * The body's values: refuses with 400 one holding more than the limit
 * (requestValues.ts) before the SDK checks it against a schema. Notes the
 * parsed body; one that is not JSON passes unparsed, for the handler to
 * answer. A request with no body read passes.
 */
export const valueLimit: Check = (x) => {
  if (x.body === undefined || x.body.length === 0) return undefined;
  try {
    x.parsedBody = JSON.parse(decoder.decode(x.body));
  } catch {
    return undefined; // the handler answers a parse error itself
  }
  return holdsTooManyValues(x.parsedBody) ? rpcError(400, -32600, TOO_MANY_VALUES) : undefined;
};

/** The answer when the shared store that keeps the sessions does not answer: try again. */
export const STORE_AWAY = () => rpcError(503, -32000, "the server cannot reach its store just now: try again", RETRY);

/**
 * The 2025-11-25 session a request names in Mcp-Session-Id: refuses with
 * 404 an id that is not a live session of the token's own agent; else notes
 * the session (and marks it used). A request naming none passes. With a
 * shared store, a session of the agent's that this replica does not hold is
 * built from its row by `resume`; one that cannot be is refused the same way.
 */
export function sessionCheck(sessions: LegacySessions, resume?: Resume): Check {
  const gone = () => rpcError(404, -32001, "no such session: start again with initialize");
  return (x) => {
    const id = x.req.headers.get("mcp-session-id");
    if (id === null) return undefined;
    let found: ReturnType<LegacySessions["use"]>;
    try {
      found = sessions.use(id, x.agent as string);
    } catch {
      return STORE_AWAY();
    }
    if (!found) return gone();
    if (!("row" in found)) {
      x.session = found;
      return undefined;
    }
    if (!resume) return gone();
    return resume(found.row, x.req, x.authInfo as AuthInfo).then((session) => {
      if (!session) return gone();
      x.session = session;
      return undefined;
    });
  };
}
