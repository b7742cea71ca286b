/**
 * A 2025-11-25 session carried between replicas of one shared store: its row
 * is written as its initialize is answered, and a replica that does not hold
 * a session a request names builds it again from that row. The rebuilt
 * session is the SDK's own: a new transport whose session id is the stored
 * one and a new server, primed by replaying the client's initialize (its
 * revision, clientInfo and capabilities) into them, its answer dropped, as
 * the SDK's public API takes it. The SDK itself is not patched: keepOnAnswer
 * wraps the `send` of one transport rta made, so the row is kept before the
 * initialize answer leaves.
 */
import {
  type AuthInfo,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Deps } from "../../gate/deps.ts";
import { keptClient, type SessionRow, type SessionRows } from "../../gate/store/pgSessions.ts";
import { PgGateStore } from "../../gate/store/pgStore.ts";
import type { LegacySession, LegacySessions } from "./sessions.ts";

/** What a session's transport is given once it is made: its server, connected to it; `resumed` for one built again. */
export type Attach = (
  transport: WebStandardStreamableHTTPServerTransport,
  id: string,
  resumed?: boolean,
) => Promise<void>;

/** The id the replayed initialize carries; its answer is read by no client. */
const REPLAY_ID = "rta-session-resume";

/**
 * Keeps the session's row once its initialize is answered: the answer's revision, and the client's info and
 * capabilities from `params`, written before the answer leaves, so the client's next request finds the row on any
 * replica. A store that cannot keep it turns the answer into an error and the session is forgotten. Refuses nothing.
 */
export function keepOnAnswer(
  session: LegacySession,
  sessions: LegacySessions,
  initialize: { id: unknown; params: unknown },
  now: () => number,
): void {
  const transport = session.transport;
  const send = transport.send.bind(transport);
  let kept = false;
  transport.send = async (message: JSONRPCMessage, options) => {
    if (!kept && isJSONRPCResultResponse(message) && message.id === initialize.id) {
      kept = true;
      const protocol = (message.result as { protocolVersion?: unknown }).protocolVersion;
      try {
        if (typeof protocol !== "string") throw new Error("the initialize answer names no revision");
        const at = now();
        const row = { id: session.id, agent: session.agent, protocol, createdAt: at, lastUsed: at };
        sessions.opened({ ...row, ...keptClient(initialize.params) });
      } catch {
        try {
          sessions.forget(session.id);
        } catch {
          // the store that could not keep the row cannot remove it either: there is none
        }
        const failed: JSONRPCMessage = {
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32603, message: "the server could not keep the session: try again" },
        };
        return send(failed, options).finally(() => void transport.close().catch(() => {}));
      }
    }
    return send(message, options);
  };
}

/**
 * The session a row holds, built again on this replica and held by `sessions`: undefined when the replay was not
 * taken (the session is then not held, and its row is left for the replica that can). Requests for one id at once
 * share one rebuild.
 */
export function resumer(
  sessions: LegacySessions,
  attach: Attach,
): (row: SessionRow, req: Request, authInfo: AuthInfo) => Promise<LegacySession | undefined> {
  const building = new Map<string, Promise<LegacySession | undefined>>();
  return (row, req, authInfo) => {
    let made = building.get(row.id);
    if (!made) {
      made = rebuild(row, req, authInfo, sessions, attach).finally(() => building.delete(row.id));
      building.set(row.id, made);
    }
    return made;
  };
}

async function rebuild(
  row: SessionRow,
  req: Request,
  authInfo: AuthInfo,
  sessions: LegacySessions,
  attach: Attach,
): Promise<LegacySession | undefined> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => row.id,
    onsessionclosed: (closed) => sessions.forget(closed),
  });
  await attach(transport, row.id, true);
  const initialize = {
    jsonrpc: "2.0",
    id: REPLAY_ID,
    method: "initialize",
    params: { protocolVersion: row.protocol, capabilities: row.capabilities, clientInfo: row.client },
  };
  const replay = new Request(req.url, {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
  });
  let answered = false;
  try {
    const res = await transport.handleRequest(replay, { authInfo, parsedBody: initialize });
    answered = res.ok && (await res.text()).includes(`"protocolVersion":${JSON.stringify(row.protocol)}`);
  } catch {
    answered = false;
  }
  if (!answered || transport.sessionId !== row.id) {
    void transport.close().catch(() => {});
    return undefined;
  }
  const session: LegacySession = {
    id: row.id,
    transport,
    agent: row.agent,
    lastUsed: row.lastUsed,
    busy: 0,
    streams: 0,
  };
  const held = sessions.adopt(session);
  if (held !== session) void transport.close().catch(() => {});
  return held;
}

/**
 * The shared store's session rows, once the store is open and is PostgreSQL; undefined with gate.db, where the
 * sessions stay in memory and no request reads a store for them. Throws what opening the store threw.
 */
export function sharedRows(deps: Deps): () => SessionRows | undefined {
  let rows: SessionRows | undefined;
  let known = false;
  return () => {
    if (!known) {
      const gate = deps.gate();
      rows = gate instanceof PgGateStore ? gate.sessionRows() : undefined;
      known = true;
    }
    return rows;
  };
}
