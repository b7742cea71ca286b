/**
 * Who a client says it is: its name and version, per request or from
 * initialize, and the agent name a reported client name is made into.
 */
import { CLIENT_INFO_META_KEY, type Implementation, type Server } from "@modelcontextprotocol/server";
import { agentNameFromClient } from "../core/agentName.ts";
import type { AgentOrigin } from "../core/call.ts";
import type { ServeContext } from "./serveContext.ts";

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

/** The agent name a reported client name is made into (the last one is kept, as a client reports the same one each call). */
export function agentNameOf(reported: string): string {
  if (reported !== lastReported) {
    lastAgentName = agentNameFromClient(reported);
    lastReported = reported;
  }
  return lastAgentName;
}

/** Who is calling, from the client's reported name and version and, over HTTP, the agent its token names. */
export function callerOf(ctx: ServeContext, client: Implementation | undefined, tokenAgent?: string): AgentOrigin {
  const reported = client?.name?.trim() || "unknown";
  return {
    kind: "agent",
    name: tokenAgent ?? ctx.agent ?? agentNameOf(reported),
    client: client ? `${reported} ${client.version ?? ""}`.trim() : "unknown",
    session: ctx.session,
    transport: ctx.transport,
  };
}
