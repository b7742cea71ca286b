/**
 * One server factory for every MCP transport: the catalogue projected as
 * tools, each call handed to the one pipeline with the agent as its origin.
 * The SDK serves both eras from this factory: the 2026-07-28 stateless
 * revision (`server/discover`, `_meta` on every request) and the 2025-11-25
 * `initialize` flow.
 */

import { fileURLToPath } from "node:url";
import {
  CLIENT_INFO_META_KEY,
  type Implementation,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { version } from "../../package.json";
import { agentNameFromClient } from "../core/agentName.ts";
import type { AgentOrigin, Outcome, Transport } from "../core/call.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { EMPTY_CONFIG, usable } from "../core/config.ts";
import { lap } from "../core/profile.ts";
import type { Redactor } from "../core/redact.ts";
import { errorResult, forAgent } from "../core/result.ts";
import type { Limits } from "../gate/bound.ts";
import type { Deps } from "../gate/deps.ts";
import { runCall } from "../gate/pipeline.ts";
import { boundErrors } from "./boundedErrors.ts";
import { complete } from "./completion.ts";
import { instructions, toolListings } from "./describe.ts";
import { getPrompt, page, promptList, readResource, resourceList, templateList } from "./resources.ts";
import { readTemplate } from "./templateRead.ts";
import { parseReadUri, plainEntries, readTemplates, templateEntries } from "./templates.ts";

export interface ServeContext {
  catalogue: Catalogue;
  deps: Deps;
  /** the session id of this server process, written on every record line */
  session: string;
  transport: Transport;
  /** from the registration (`--agent`); else the client's reported name */
  agent?: string;
  limits: Limits;
  /** called with what a capability threw that was not an RtaError */
  onUnexpected?: (thrown: unknown) => void;
  /** the roots the client offered (file paths), each time it offers them */
  onClientRoots?: (paths: string[]) => void;
  /** told of each tools/call the SDK hands to this server's handler, with the server and the request's id */
  onSdkCall?: (server: Server, id: string | number) => void;
}

/**
 * Said to a remote client, which is told nothing of where the server keeps
 * what it serves: how its roots and dirs appear in what it is told, and where
 * a relative path starts.
 */
const REMOTE_PLACES =
  "This server is remote: its roots are named in results only as <root 1>, <root 2> and so on, and its own directories as <data dir> and <config dir>. A relative path starts at <root 1>.";

/** The tool list changes only with the operator's config (what it fills, the profiles it sets up): clients may keep it a minute. */
const TOOLS_LIST_TTL_MS = 60_000;

/** The server's name and version, as the SDK stamps them on a 2026-07-28 result. */
export const SERVER_INFO: Implementation = { name: "rta", version };

/** Builds a server for one connection. Cheap and free of side effects: the SDK may call it twice while it settles the era. */
export function createServer(ctx: ServeContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      logging: {},
    },
    instructions:
      instructions(ctx.catalogue, usable(ctx.deps.config.current()) ?? EMPTY_CONFIG) +
      (ctx.transport === "http" ? `\n${REMOTE_PLACES}` : ""),
    // the read templates are made from the tool list, and change with it
    cacheHints: {
      "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "public" },
      "resources/templates/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "public" },
    },
  });
  // Built from the declarations and the operator's config as it stands, so a required input the config now
  // fills is not listed as required. The SDK's JSON type is narrower than our Record<string, unknown>.
  // one function for the redactor's life, so the listing made for it is handed out again while the config holds,
  // to every server: the HTTP front makes one for each session or request
  const shownToAgent = agentShown(ctx.deps.redactor);
  server.setRequestHandler("tools/list", async (req) => {
    const config = usable(ctx.deps.config.current()) ?? EMPTY_CONFIG;
    const all = toolListings(ctx.catalogue, config, shownToAgent) as unknown as Tool[];
    const p = page(all, req.params?.cursor, (t) => t.name);
    return p.nextCursor ? { tools: p.items, nextCursor: p.nextCursor } : { tools: p.items };
  });

  // The reads as templates, from the tool list as it stands: what the agent sees of each read's inputs.
  const reads = () => {
    const config = usable(ctx.deps.config.current()) ?? EMPTY_CONFIG;
    const tools = toolListings(ctx.catalogue, config, shownToAgent);
    return readTemplates(ctx.catalogue, tools);
  };
  server.setRequestHandler("resources/list", async (req) => {
    const p = page(resourceList(plainEntries(reads())), req.params?.cursor, (r) => r.uri);
    return p.nextCursor ? { resources: p.items, nextCursor: p.nextCursor } : { resources: p.items };
  });
  server.setRequestHandler("resources/templates/list", async (req) => {
    const p = page(templateList(templateEntries(reads())), req.params?.cursor, (r) => r.uriTemplate);
    return p.nextCursor ? { resourceTemplates: p.items, nextCursor: p.nextCursor } : { resourceTemplates: p.items };
  });
  server.setRequestHandler("resources/read", async (req, reqCtx) => {
    const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
    const uri = req.params.uri;
    const read = parseReadUri(uri, reads());
    if (read !== undefined) {
      const run = (tool: string, args: Record<string, unknown>, o: AgentOrigin) =>
        agentOutcome(ctx, tool, args, o, reqCtx.mcpReq.signal);
      return {
        contents: [await readTemplate(uri, read.template, read.args, origin, run, (h) => toolWords(h, ctx.catalogue))],
      };
    }
    const config = usable(ctx.deps.config.current()) ?? EMPTY_CONFIG;
    const contents = ctx.deps.redactor.value(
      readResource(uri, origin.name, ctx.catalogue, ctx.deps.gate, ctx.deps.clock.now(), config),
    );
    return { contents: [contents] };
  });
  server.setRequestHandler("prompts/list", async (req) => {
    const p = page(promptList(), req.params?.cursor, (x) => x.name);
    return p.nextCursor ? { prompts: p.items, nextCursor: p.nextCursor } : { prompts: p.items };
  });
  server.setRequestHandler("prompts/get", async (req) => getPrompt(req.params.name, req.params.arguments));
  // a path offered is said as a result would say it (a remote client reads <root 1>, never the root itself)
  server.setRequestHandler("completion/complete", async (req) => {
    const offered = complete(req.params.ref, req.params.argument, ctx.catalogue, reads(), () => ctx.deps.roots);
    return { completion: { ...offered, values: offered.values.map(shownToAgent) } };
  });
  // rta sends no log messages over MCP (its record is the log); a level is taken and kept quiet.
  server.setRequestHandler("logging/setLevel", async () => ({}));

  server.setRequestHandler("tools/call", async (req, reqCtx) => {
    lap("calls in flight");
    ctx.onSdkCall?.(server, reqCtx.mcpReq.id);
    const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
    return answerCall(ctx, req.params.name, req.params.arguments ?? {}, origin, reqCtx.mcpReq.signal);
  });

  // The 2025-11-25 flow: a client that declares roots is asked for them once it is initialized, and again
  // whenever it says they changed. (The 2026-07-28 revision asks for them inside a call; not yet done here.)
  if (ctx.onClientRoots) {
    const onRoots = ctx.onClientRoots;
    const ask = async () => {
      if (!server.getClientCapabilities()?.roots) return;
      try {
        const { roots } = await server.listRoots();
        onRoots(roots.flatMap((r) => (r.uri.startsWith("file://") ? [fileURLToPath(r.uri)] : [])));
      } catch {
        // a client that declared roots and then does not answer keeps the server's roots only
      }
    };
    server.oninitialized = () => void ask();
    server.setNotificationHandler("notifications/roots/list_changed", async () => ask());
  }
  return boundErrors(server);
}

/** The agent's redaction as one function per redactor, the key describe.ts keeps a tool list made with it by. */
const shownBy = new WeakMap<Redactor, (text: string) => string>();

function agentShown(redactor: Redactor): (text: string) => string {
  let shown = shownBy.get(redactor);
  if (shown === undefined) {
    shown = (text) => redactor.shown(text);
    shownBy.set(redactor, shown);
  }
  return shown;
}

/** A tools/call result as rta builds it: one text block, with isError on the tool's refusal. */
export type ToolAnswer = {
  content: [{ type: "text"; text: string }];
  isError?: true;
};

/**
 * Runs one tool call through the pipeline and builds its result, as the SDK's
 * handler and the stdio direct path both answer it. Throws a ProtocolError
 * (-32602, with rta's code and hint in its data) for an unknown tool.
 */
export async function answerCall(
  ctx: ServeContext,
  name: string,
  args: Record<string, unknown>,
  origin: AgentOrigin,
  signal: AbortSignal,
): Promise<ToolAnswer> {
  const outcome = await agentOutcome(ctx, name, args, origin, signal);
  if (outcome.ok) {
    const text = JSON.stringify(forAgent(outcome.value));
    lap("result JSON");
    return { content: [{ type: "text", text }] };
  }
  // An unknown tool (and a never-a-tool name, in the same words) is a protocol fault; everything else is the tool's answer.
  // The hint rides in the error's data, with the code, since a JSON-RPC error has no field of its own for it.
  if (outcome.error.code === "core.tool.unknown") {
    const { code, hint } = outcome.error;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error.message, { code, hint });
  }
  const answer = errorResult(outcome.error);
  if (answer.hint !== undefined) answer.hint = toolWords(answer.hint, ctx.catalogue);
  return { content: [{ type: "text", text: JSON.stringify(answer) }], isError: true };
}

/** One agent call through the pipeline, with the server's bounds: what a tools/call and a resource read both run. */
function agentOutcome(
  ctx: ServeContext,
  name: string,
  args: Record<string, unknown>,
  origin: AgentOrigin,
  signal: AbortSignal,
): Promise<Outcome> {
  return runCall({ capability: name, args, origin }, ctx.catalogue, ctx.deps, {
    limits: ctx.limits,
    signal,
    onUnexpected: ctx.onUnexpected,
  });
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

/**
 * Who is calling: over HTTP the agent its token names, whatever the client
 * calls itself; over stdio the registration's --agent, else the client's name,
 * made into an agent name when it is not one.
 */
function agentOrigin(ctx: ServeContext, client: Implementation | undefined, reqCtx: ServerContext): AgentOrigin {
  return callerOf(ctx, client, (reqCtx.http?.authInfo?.extra as { agent?: string } | undefined)?.agent);
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

/** The client name last made into an agent name, and the name it made: a client reports the same one every call. */
let lastReported: string | undefined;
let lastAgentName = "";

function agentNameOf(reported: string): string {
  if (reported !== lastReported) {
    lastAgentName = agentNameFromClient(reported);
    lastReported = reported;
  }
  return lastAgentName;
}

/**
 * A hint names a capability as a person does (fs.list); an agent calls it by
 * its tool's name (fs_list). A command in backticks is the person's to run and
 * is left as it is.
 */
export function toolWords(hint: string, catalogue: Catalogue): string {
  return hint
    .split("`")
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\b[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)+\b/g, (name) => catalogue.byName(name)?.tool ?? name),
    )
    .join("`");
}
