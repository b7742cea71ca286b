/**
 * What an agent is told, asked of the real server: `rta mcp inspect` starts
 * the server factory every transport uses (createServer) behind the SDK's
 * own era handling, over an in-memory pair, and speaks to it with the SDK's
 * client, as an agent's client would. Nothing here describes a tool: what it
 * shows is what the server sent, so it cannot drift from it. It makes no
 * call, so it spends no grant and writes no record.
 */
import { Client, type InMemoryTransport as ClientPipe } from "@modelcontextprotocol/client";
import { InMemoryTransport, type JSONRPCMessage, type Tool } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { version } from "../../package.json";
import { needsGrant } from "../core/capability.ts";
import { gateTargets } from "../gate/locks.ts";
import type { InspectEra } from "./eras.ts";
import { createServer, type ServeContext } from "./server.ts";

export { ERAS, type InspectEra } from "./eras.ts";

/** A live grant the agent holds that covers a tool, as `rta grant list` would name it. */
export interface HeldGrant {
  id: string;
  target: string;
  until: string;
  uses_left: number | "any";
  /** what the grant is narrowed to, each as `host=example.com`; empty when it covers every call */
  narrowed: string[];
}

/** One tool as the server listed it, with what it costs and what the agent needs to call it. */
export interface InspectedTool {
  name: string;
  description: string;
  inputSchema: Tool["inputSchema"];
  annotations: Tool["annotations"];
  /** its JSON's bytes in the tools/list answer */
  bytes: number;
  /** free to call, or refused until a person issues a grant */
  access: "free" | "grant";
  /** the agent's live grants that name it (or its area); only when the agent is named */
  grants?: HeldGrant[];
  /** the id of a lock that stops the named agent's calls to it now, whatever it holds */
  lock?: string;
}

export interface Inspection {
  era: InspectEra;
  /** the agent the server was told of; undefined: a client whose name it does not know */
  agent?: string;
  instructions: string;
  tools: InspectedTool[];
  /** the bytes of every tools/list answer, as each is written on the wire, envelope included */
  listBytes: number;
  /** the tools' own bytes over their number */
  bytesPerTool: number;
  resources: Record<string, unknown>[];
  templates: Record<string, unknown>[];
  prompts: Record<string, unknown>[];
}

/**
 * Asks a server made from `ctx` what it tells an agent on `era`: its
 * instructions, every page of its tools, resources, templates and prompts,
 * with each tools/list answer measured as it is written. `ctx.agent` is the
 * agent (as `rta mcp serve --agent`); without it the client reports no name,
 * as one the server cannot name. Refuses nothing of its own: a protocol
 * fault of the server is thrown as the SDK reports it.
 */
export async function inspectServer(ctx: ServeContext, era: InspectEra, now: number): Promise<Inspection> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const sizes = new Map<string | number, number>();
  const toolBytes = new Map<string, number>();
  const send = serverSide.send.bind(serverSide);
  // each answer measured as the stdio transport writes it (its JSON on one line), each tool as it stands in it
  serverSide.send = (message: JSONRPCMessage, options) => {
    const m = message as { id?: string | number; result?: { tools?: { name?: unknown }[] } };
    if (m.id !== undefined && Array.isArray(m.result?.tools)) {
      sizes.set(m.id, Buffer.byteLength(JSON.stringify(m)) + 1);
      for (const t of m.result.tools) toolBytes.set(String(t.name), Buffer.byteLength(JSON.stringify(t)));
    }
    return send(message, options);
  };
  const handle = serveStdio(() => createServer(ctx), { transport: serverSide });
  const client = new Client(
    { name: ctx.agent ?? "", version },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  try {
    await client.connect(clientSide as unknown as ClientPipe);
    const tools: Tool[] = [];
    const resources: Record<string, unknown>[] = [];
    const templates: Record<string, unknown>[] = [];
    const prompts: Record<string, unknown>[] = [];
    for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    }
    for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      resources.push(...page.resources);
      cursor = page.nextCursor;
    }
    for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
      const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor });
      templates.push(...page.resourceTemplates);
      cursor = page.nextCursor;
    }
    for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
      prompts.push(...page.prompts);
      cursor = page.nextCursor;
    }
    const inspected = tools.map((t) => inspectedTool(ctx, t, toolBytes.get(t.name) ?? 0, now));
    const own = inspected.reduce((n, t) => n + t.bytes, 0);
    return {
      era,
      ...(ctx.agent !== undefined ? { agent: ctx.agent } : {}),
      instructions: client.getInstructions() ?? "",
      tools: inspected,
      listBytes: [...sizes.values()].reduce((n, b) => n + b, 0),
      bytesPerTool: inspected.length === 0 ? 0 : Math.round((own / inspected.length) * 10) / 10,
      resources,
      templates,
      prompts,
    };
  } finally {
    await client.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
  }
}

/** A listed tool with its bytes, whether it needs a grant, and the named agent's grants that cover it. */
function inspectedTool(ctx: ServeContext, tool: Tool, bytes: number, now: number): InspectedTool {
  const cap = ctx.catalogue.byTool(tool.name);
  const access = cap !== undefined && needsGrant(cap) ? "grant" : "free";
  const listed: InspectedTool = {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
    bytes,
    access,
  };
  if (ctx.agent === undefined || cap === undefined) return listed;
  const targets = gateTargets(cap);
  const gate = ctx.deps.gate();
  const lock = gate.lockFor(ctx.agent, targets, now);
  if (lock !== undefined) listed.lock = lock.id;
  listed.grants = gate
    .liveGrants(ctx.agent, now)
    .filter((g) => targets.includes(g.target))
    .map((g) => ({
      id: g.id,
      target: g.target,
      until: new Date(g.expires_at).toISOString(),
      uses_left: g.max_uses === null ? "any" : g.max_uses - g.uses,
      narrowed: [
        ...(g.record !== null ? [`record=${g.record}`] : []),
        ...(g.host !== null ? [`host=${g.host}`] : []),
        ...(g.profile !== null ? [`profile=${g.profile}`] : []),
        ...(g.connection !== null ? [`connection=${g.connection}`] : []),
        ...(g.args_digest !== null ? ["exact call only"] : []),
      ],
    }));
  return listed;
}
