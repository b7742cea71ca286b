/**
 * One server factory for every MCP transport: the catalogue projected as
 * tools, each call handed to the one pipeline with the agent as its origin.
 * The SDK serves both eras from this factory: the 2026-07-28 stateless
 * revision (`server/discover`, `_meta` on every request) and the 2025-11-25
 * `initialize` flow.
 */

import { type Implementation, Server, type Tool } from "@modelcontextprotocol/server";
import { version } from "../../package.json";
import { knownAgent } from "../core/agentName.ts";
import { EMPTY_CONFIG, usable } from "../core/config.ts";
import { lap } from "../core/profile.ts";
import type { Redactor } from "../core/redact.ts";
import { mayList } from "../gate/listingGate.ts";
import { answerCall } from "./answer.ts";
import { boundErrors } from "./boundedErrors.ts";
import { agentOrigin, clientInfo } from "./caller.ts";
import { rootPaths, rootsRound } from "./callRoots.ts";
import { complete } from "./completion.ts";
import { consentSeat } from "./consentSeat.ts";
import { instructions, toolListings } from "./describe.ts";
import { getPrompt, page, promptList, resourceList, templateList } from "./resources.ts";
import { checkUri, type ReadPlace, readUri, watchIn } from "./subscriptionReads.ts";
import { plainEntries, readTemplates, templateEntries } from "./templates.ts";
import { getUpstreamPrompt } from "./upstreamReads.ts";

export { answerCall, type ToolAnswer } from "./answer.ts";

import type { ServeContext } from "./serveContext.ts";

export type { ServeContext };

/**
 * Said to a remote client, which is told nothing of where the server keeps
 * what it serves: how its roots and dirs appear in what it is told, and where
 * a relative path starts.
 */
const REMOTE_PLACES =
  "This server is remote: its roots are named in results only as <root 1>, <root 2> and so on, and its own directories as <data dir> and <config dir>. A relative path starts at <root 1>.";

/**
 * The tool list changes only with the operator's config (what it fills, the profiles it sets up): clients may keep it
 * a minute. It is private to the agent, whose name each grant's command in it gives.
 */
const TOOLS_LIST_TTL_MS = 60_000;

/** The server's name and version, as the SDK stamps them on a 2026-07-28 result. */
export const SERVER_INFO: Implementation = { name: "rta", version };

/** Builds a server for one connection. Cheap and free of side effects: the SDK may call it twice while it settles the era. */
export function createServer(ctx: ServeContext): Server {
  // a catalogue that takes up a person's approvals while it runs says when its tools change; over stdio, where each
  // connection has its own server, the client is told here (over HTTP, by the front: http/front.ts)
  const live = (ctx.catalogue as Partial<Changing>).onChange?.bind(ctx.catalogue);
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: live !== undefined },
      resources: { listChanged: false, subscribe: ctx.subscriptions !== undefined },
      prompts: { listChanged: false },
      completions: {},
      logging: {},
    },
    instructions:
      instructions(ctx.catalogue, usable(ctx.deps.config.current()) ?? EMPTY_CONFIG) +
      (ctx.transport === "http" ? `\n${REMOTE_PLACES}` : ""),
    // the read templates are made from the tool list, and change with it; both are private, as the tool list is
    cacheHints: {
      "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" },
      "resources/templates/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" },
    },
  });
  // Built from the declarations and the operator's config as it stands, so a required input the config now
  // fills is not listed as required. The SDK's JSON type is narrower than our Record<string, unknown>.
  // one function for the redactor's life, so the listing made for it is handed out again while the config holds,
  // to every server: the HTTP front makes one for each session or request
  const shownToAgent = agentShown(ctx.deps.redactor);
  server.setRequestHandler("tools/list", async (req, reqCtx) => {
    const config = usable(ctx.deps.config.current()) ?? EMPTY_CONFIG;
    // a grant's command in a description names the agent the server will record this client's calls under
    const agent = knownAgent(agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx).name);
    const all = toolListings(ctx.catalogue, config, shownToAgent, agent) as unknown as Tool[];
    const p = page(all, req.params?.cursor, (t) => t.name);
    return p.nextCursor ? { tools: p.items, nextCursor: p.nextCursor } : { tools: p.items };
  });

  // The reads as templates, from the tool list as it stands: what the agent sees of each read's inputs.
  const place = readPlace(ctx, shownToAgent);
  const { reads } = place;
  server.setRequestHandler("resources/list", async (req) => {
    const own = resourceList(plainEntries(reads()));
    const p = page([...own, ...(ctx.upstreams?.resources() ?? [])], req.params?.cursor, (r) => r.uri);
    return p.nextCursor ? { resources: p.items, nextCursor: p.nextCursor } : { resources: p.items };
  });
  server.setRequestHandler("resources/templates/list", async (req) => {
    const all = [...templateList(templateEntries(reads())), ...(ctx.upstreams?.templates() ?? [])];
    const p = page(all, req.params?.cursor, (r) => r.uriTemplate);
    return p.nextCursor ? { resourceTemplates: p.items, nextCursor: p.nextCursor } : { resourceTemplates: p.items };
  });
  server.setRequestHandler("resources/read", async (req, reqCtx) => {
    const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
    return (await readUri(place, req.params.uri, origin, reqCtx.mcpReq.signal)) as never;
  });
  const subs = ctx.subscriptions;
  if (subs) {
    // on a shared store the watchers are leased across the replicas, and their changes come from whichever runs one
    const watch = ctx.leases ? ctx.leases.watch(place, (uri) => subs.tell(uri)) : watchIn(place);
    subs.use(watch, (uri) => checkUri(place, uri));
    server.setRequestHandler("resources/subscribe", async (req, reqCtx) => {
      await subs.subscribe(req.params.uri, agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx));
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", async (req, reqCtx) => {
      // a shared store's subscription is the session's row, wherever it was made: it goes by its id, held here or not
      if (ctx.leases && subs.session !== undefined) {
        const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
        ctx.leases.sessions.unsubscribed(subs.session, origin.name, req.params.uri);
      }
      subs.unsubscribe(req.params.uri);
      return {};
    });
    // told only once connected: on 2026-07-28 the SDK hands the notice to each listen that names the URI
    const stop = subs.onUpdate((uri) => {
      if (server.transport !== undefined) void server.sendResourceUpdated({ uri }).catch(() => {});
    });
    const closed = server.onclose;
    server.onclose = () => {
      stop();
      closed?.();
    };
  }
  server.setRequestHandler("prompts/list", async (req) => {
    const own = promptList();
    const theirs = (ctx.upstreams?.prompts() ?? []).filter((x) => !own.some((p) => p.name === x.name));
    const p = page([...own, ...theirs], req.params?.cursor, (x) => x.name);
    return p.nextCursor ? { prompts: p.items, nextCursor: p.nextCursor } : { prompts: p.items };
  });
  server.setRequestHandler("prompts/get", async (req, reqCtx) => {
    const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
    const args = req.params.arguments ?? {};
    // rta's own prompt keeps its name: an upstream's of the same name is not offered
    const own = promptList().some((p) => p.name === req.params.name);
    const upstream = own
      ? undefined
      : await getUpstreamPrompt(ctx, req.params.name, args, origin, reqCtx.mcpReq.signal);
    return (upstream as never) ?? getPrompt(req.params.name, req.params.arguments);
  });
  // a path offered is said as a result would say it (a remote client reads <root 1>, never the root itself)
  // a path's names are a listing: the read's lock and rate limit hold it as they hold a call
  server.setRequestHandler("completion/complete", async (req, reqCtx) => {
    const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
    const offered = complete(
      req.params.ref,
      req.params.argument,
      ctx.catalogue,
      reads(),
      () => ctx.deps.roots,
      (cap) => mayList(cap, origin, ctx.deps),
    );
    return { completion: { ...offered, values: offered.values.map(shownToAgent) } };
  });
  // rta sends no log messages over MCP (its record is the log); a level is taken and kept quiet.
  server.setRequestHandler("logging/setLevel", async () => ({}));

  server.setRequestHandler("tools/call", async (req, reqCtx) => {
    lap("calls in flight");
    ctx.onSdkCall?.(server, reqCtx.mcpReq.id);
    const origin = agentOrigin(ctx, clientInfo(server, reqCtx.mcpReq.envelope), reqCtx);
    const version = server.getNegotiatedProtocolVersion();
    const args = req.params.arguments ?? {};
    const asked = rootsRound(server, reqCtx, ctx.rootsInCall, ctx.catalogue, req.params.name, args);
    if (asked) return asked;
    const call = { session: ctx.session, origin, tool: req.params.name, args, dataDir: ctx.deps.dirs.data };
    const seat = consentSeat(server, reqCtx, call);
    return answerCall(ctx, req.params.name, args, origin, reqCtx.mcpReq.signal, version, seat);
  });

  // The 2025-11-25 flow: a client that declares roots is asked for them once it is initialized, and again
  // whenever it says they changed. (The 2026-07-28 revision asks for them inside a call: callRoots.ts.)
  if (ctx.onClientRoots) {
    const onRoots = ctx.onClientRoots;
    const ask = async () => {
      if (!server.getClientCapabilities()?.roots) return;
      try {
        const { roots } = await server.listRoots();
        onRoots(rootPaths(roots));
      } catch {
        // a client that declared roots and then does not answer keeps the server's roots only
      }
    };
    server.oninitialized = () => void ask();
    server.setNotificationHandler("notifications/roots/list_changed", async () => ask());
  }
  if (live !== undefined && ctx.transport === "stdio") {
    // told only once connected; the server the SDK made and dropped while it settled the era is never connected
    const stop = live(() => {
      if (server.transport !== undefined) void server.sendToolListChanged().catch(() => {});
    });
    const closed = server.onclose;
    server.onclose = () => {
      stop();
      closed?.();
    };
  }
  return boundErrors(server);
}

/** A catalogue that says when the tools it offers change (upstreams/live.ts). */
export interface Changing {
  onChange(listener: () => void): () => void;
}

/** The agent's redaction as one function per redactor, the key describe.ts keeps a tool list made with it by. */
const shownBy = new WeakMap<Redactor, (text: string) => string>();

/**
 * Where a resource is read for `ctx`: its context, and the reads as templates from the tool list as it stands
 * (what the agent sees of each read's inputs, through `shown`). A shared store's replica reads its leased
 * watchers here (leases.ts), as each connection's server reads its own.
 */
export function readPlace(ctx: ServeContext, shown = agentShown(ctx.deps.redactor)): ReadPlace {
  const reads = () => {
    const config = usable(ctx.deps.config.current()) ?? EMPTY_CONFIG;
    return readTemplates(ctx.catalogue, toolListings(ctx.catalogue, config, shown));
  };
  return { ...ctx, reads };
}

function agentShown(redactor: Redactor): (text: string) => string {
  let shown = shownBy.get(redactor);
  if (shown === undefined) {
    shown = (text) => redactor.shown(text);
    shownBy.set(redactor, shown);
  }
  return shown;
}
