/**
 * Who a client says it is: its name and version, per request or from
 * initialize, and the agent name a reported client name is made into.
 */
import {
  CLIENT_INFO_META_KEY,
  type Implementation,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { agentNameFromClient } from "../core/agentName.ts";
import type { AgentOrigin, Transport } from "../core/call.ts";

/** What a server knows of its connection that names the caller: its session, transport and --agent. */
export interface CallerPlace {
  session: string;
  transport: Transport;
  agent?: string;
}

/**
 * The client's name and version: per request in the 2026-07-28 era (from the
 * request's envelope, its `_meta`), from initialize in the 2025-11-25 one. The
 * SDK's handler and the stdio direct path both ask it, so both hand the
 * pipeline the same caller.
 */
export function clientInfo(server: Server, envelope: unknown): Implementation | undefined {
  const meta = envelope as Record<string, unknown> | undefined;
  return (meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined) ?? server.getClientVersion();
}

/** The client name last made into an agent name, and the name it made: a client reports the same one every call. */
let lastReported: string | undefined;
let lastAgentName = "";

/** The agent name a reported client name is made into, kept for the next ask. Refuses nothing. */
export function agentNameOf(reported: string): string {
  if (reported !== lastReported) {
    lastAgentName = agentNameFromClient(reported);
    lastReported = reported;
  }
  return lastAgentName;
}

/**
 * Who is calling: over HTTP the agent its token names, whatever the client
 * calls itself; over stdio the registration's --agent, else the client's name,
 * made into an agent name when it is not one.
 */
export function agentOrigin(ctx: CallerPlace, client: Implementation | undefined, reqCtx: ServerContext): AgentOrigin {
  return callerOf(ctx, client, (reqCtx.http?.authInfo?.extra as { agent?: string } | undefined)?.agent);
}

/** The caller last made, and what it was made from: a client reports the same name and version every call. */
let last: (CallerKey & { origin: AgentOrigin }) | undefined;

/** What a caller is made from: the server's place as it stood, the token's agent, and the client's report. */
interface CallerKey {
  place: CallerPlace;
  agent?: string;
  session: string;
  tokenAgent?: string;
  hasClient: boolean;
  name: unknown;
  version: unknown;
}

/**
 * Who is calling, from the client's reported name and version and, over HTTP,
 * the agent its token names. The same caller as the last is the same value:
 * a caller is never changed once made.
 */
export function callerOf(ctx: CallerPlace, client: Implementation | undefined, tokenAgent?: string): AgentOrigin {
  const name = client?.name;
  const version = client?.version;
  if (
    last !== undefined &&
    last.place === ctx &&
    last.agent === ctx.agent &&
    last.session === ctx.session &&
    last.tokenAgent === tokenAgent &&
    last.hasClient === (client !== undefined) &&
    last.name === name &&
    last.version === version
  )
    return last.origin;
  const reported = name?.trim() || "unknown";
  const origin: AgentOrigin = {
    kind: "agent",
    name: tokenAgent ?? ctx.agent ?? agentNameOf(reported),
    client: client ? `${reported} ${version ?? ""}`.trim() : "unknown",
    session: ctx.session,
    transport: ctx.transport,
  };
  last = {
    place: ctx,
    agent: ctx.agent,
    session: ctx.session,
    tokenAgent,
    hasClient: client !== undefined,
    name,
    version,
    origin,
  };
  return origin;
}
