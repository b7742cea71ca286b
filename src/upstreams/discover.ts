/**
 * Discovery of one upstream, bounded as a catalogue rta did not write must
 * be: tools/list paged to at most 100 pages, 10,000 tools and 10 MiB of JSON
 * in all, each page within the connection's time limit. A repeated cursor
 * (a loop) or a tool named twice fails the whole upstream's discovery with
 * the reason; nothing of it is offered then. What is found is kept as the
 * upstream sent it, each tool with the digest of its definition.
 */
import { createHash } from "node:crypto";
import { canonical } from "../core/canonical.ts";
import type { UpstreamConnection } from "./connection.ts";
import { unreachable } from "./connection.ts";

export const MAX_PAGES = 100;
export const MAX_TOOLS = 10_000;
export const MAX_LIST_BYTES = 10 * 1024 * 1024;

/** A tool as the upstream defined it, and the sha256 of that definition (name, title, description, schema, annotations). */
export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  digest: string;
  /** why its schema does not compile, as a discovery kept it */
  fault?: string;
}

/** A discovery's end: the tools, or why there are none. */
export type Discovered = { ok: true; tools: UpstreamTool[] } | { ok: false; reason: string };

/** The sha256 (hex) of a tool's canonical definition: what a grant will pin in phase 2. Refuses nothing. */
export function toolDigest(tool: Omit<UpstreamTool, "digest">): string {
  const definition = {
    name: tool.name,
    // its title is what an agent reads as its summary: a changed one is a changed tool (none given, none hashed)
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations ?? null,
  };
  return createHash("sha256").update(canonical(definition)).digest("hex");
}

/** Pages through the upstream's tools/list; never throws: a failure is the reason, in words naming nothing of where it is. */
export async function discover(connection: UpstreamConnection, pageMs: number): Promise<Discovered> {
  const tools: UpstreamTool[] = [];
  const names = new Set<string>();
  const cursors = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  try {
    const client = await connection.connected();
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES) return fail(`its tools/list ran past ${MAX_PAGES} pages`);
      // one page at a time, as the upstream sent it: the client's own listTools would walk (and cap) the pages itself
      const params = cursor === undefined ? {} : { cursor };
      const result = await client.request({ method: "tools/list", params }, { timeout: pageMs });
      bytes += Buffer.byteLength(JSON.stringify(result));
      if (bytes > MAX_LIST_BYTES) return fail("its tools/list ran past 10 MiB of JSON");
      for (const t of result.tools) {
        if (names.has(t.name)) return fail(`it lists the tool ${JSON.stringify(t.name)} twice`);
        names.add(t.name);
        if (names.size > MAX_TOOLS) return fail(`it lists more than ${MAX_TOOLS} tools`);
        const raw = {
          name: t.name,
          ...(t.title !== undefined ? { title: t.title } : {}),
          ...(t.description !== undefined ? { description: t.description } : {}),
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.annotations !== undefined ? { annotations: t.annotations as Record<string, unknown> } : {}),
        };
        tools.push({ ...raw, digest: toolDigest(raw) });
      }
      const next = result.nextCursor;
      if (next === undefined || next === null) break;
      if (cursors.has(next)) return fail("its tools/list repeated a cursor (it would never end)");
      cursors.add(next);
      cursor = next;
    }
  } catch (err) {
    const why = unreachable(err, connection.takeCut());
    if (why.tooLarge !== undefined) connection.drop();
    return fail(why.message);
  }
  return { ok: true, tools };
}

function fail(reason: string): Discovered {
  return { ok: false, reason };
}
