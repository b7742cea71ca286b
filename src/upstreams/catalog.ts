/**
 * Discovery of an upstream's resources, URI templates and prompts, for what
 * config selects of them (`select`). Each family the upstream declares, and
 * config selects from, is paged as tools/list is: at most 100 pages, 10,000
 * objects and 10 MiB of JSON; a name (or URI) listed twice or a cursor that
 * comes back fails that family with the reason, and nothing else (the
 * upstream's tools and its other families stand). A selection the upstream
 * does not list is left out with why. Each selected definition is kept as the
 * upstream sent it (its `_meta` aside) with its digest, which an approval pins.
 */
import { createHash } from "node:crypto";
import { canonical } from "../core/canonical.ts";
import { selectionKey, type UpstreamConfig, upstreamSecrets } from "../core/configUpstreams.ts";
import type { UpstreamConnection } from "./connection.ts";
import { unreachable } from "./connection.ts";
import { MAX_LIST_BYTES, MAX_PAGES, MAX_TOOLS } from "./discover.ts";
import { masked } from "./secrets.ts";

/** A selected resource, template or prompt as the upstream defined it, and the sha256 of that definition. */
export interface SelectedDefinition {
  /** `resource:doc://readme`, as config's select writes it */
  key: string;
  kind: "resource" | "template" | "prompt";
  name: string;
  definition: Record<string, unknown>;
  digest: string;
}

/** What discovery found of the selections: each definition, and each selection left out with why. */
export interface CatalogFound {
  selected: SelectedDefinition[];
  missing: { key: string; reason: string }[];
}

const FAMILIES = {
  resource: { method: "resources/list", field: "resources", id: "uri", capability: "resources" },
  template: {
    method: "resources/templates/list",
    field: "resourceTemplates",
    id: "uriTemplate",
    capability: "resources",
  },
  prompt: { method: "prompts/list", field: "prompts", id: "name", capability: "prompts" },
} as const;

/** The sha256 (hex) of a definition's canonical JSON, its `_meta` left out. Refuses nothing. */
export function definitionDigest(definition: Record<string, unknown>): string {
  return createHash("sha256").update(canonical(definition)).digest("hex");
}

/**
 * Pages each family config's `select` draws on and keeps the selected
 * definitions, the operator's secrets masked out of them; never throws: a
 * family that fails leaves its selections out with the reason, in words naming
 * nothing of where the upstream is.
 */
export async function discoverSelected(
  connection: UpstreamConnection,
  config: UpstreamConfig,
  pageMs: number,
): Promise<CatalogFound> {
  // the families together within one discovery's time, as the tools are: a slow upstream leaves them out
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<CatalogFound>((resolve) => {
    const reason = `it did not list them within ${pageMs / 1000} s`;
    const missing = (config.select ?? []).map((s) => ({ key: selectionKey(s), reason }));
    timer = setTimeout(() => resolve({ selected: [], missing }), pageMs);
  });
  const found = await Promise.race([listSelected(connection, config, pageMs), late]);
  clearTimeout(timer);
  // the digest is of what the upstream sent; what is kept and shown holds none of the operator's secrets
  return JSON.parse(masked(JSON.stringify(found), upstreamSecrets(config))) as CatalogFound;
}

async function listSelected(connection: UpstreamConnection, config: UpstreamConfig, pageMs: number) {
  const found: CatalogFound = { selected: [], missing: [] };
  const select = config.select ?? [];
  for (const kind of ["resource", "template", "prompt"] as const) {
    const wanted = select.filter((s) => s.kind === kind);
    if (wanted.length === 0) continue;
    const listed = await listFamily(connection, kind, pageMs);
    for (const s of wanted) {
      const key = selectionKey(s);
      if (!listed.ok) {
        found.missing.push({ key, reason: listed.reason });
        continue;
      }
      const definition = listed.items.get(s.name);
      if (definition === undefined) found.missing.push({ key, reason: `the upstream lists no ${kind} of that name` });
      else found.selected.push({ key, kind, name: s.name, definition, digest: definitionDigest(definition) });
    }
  }
  return found;
}

type Listed = { ok: true; items: Map<string, Record<string, unknown>> } | { ok: false; reason: string };

async function listFamily(
  connection: UpstreamConnection,
  kind: keyof typeof FAMILIES,
  pageMs: number,
): Promise<Listed> {
  const family = FAMILIES[kind];
  const items = new Map<string, Record<string, unknown>>();
  const cursors = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  const fail = (reason: string): Listed => ({ ok: false, reason });
  try {
    const client = await connection.connected();
    if (client.getServerCapabilities()?.[family.capability] === undefined)
      return fail(`the upstream offers no ${family.capability}`);
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES) return fail(`its ${family.method} ran past ${MAX_PAGES} pages`);
      const params = cursor === undefined ? {} : { cursor };
      const result = (await client.request({ method: family.method, params } as never, { timeout: pageMs })) as Record<
        string,
        unknown
      >;
      bytes += Buffer.byteLength(JSON.stringify(result));
      if (bytes > MAX_LIST_BYTES) return fail(`its ${family.method} ran past 10 MiB of JSON`);
      const list = result[family.field];
      if (!Array.isArray(list)) return fail(`its ${family.method} answer holds no list`);
      for (const item of list as Record<string, unknown>[]) {
        const id = item?.[family.id];
        if (typeof id !== "string") return fail(`its ${family.method} lists one with no ${family.id}`);
        if (items.has(id)) return fail(`its ${family.method} lists ${JSON.stringify(id.slice(0, 200))} twice`);
        const { _meta: _ignored, ...definition } = item;
        items.set(id, definition);
        if (items.size > MAX_TOOLS) return fail(`its ${family.method} lists more than ${MAX_TOOLS}`);
      }
      const next = result.nextCursor;
      if (next === undefined || next === null) break;
      if (typeof next !== "string" || cursors.has(next))
        return fail(`its ${family.method} repeated a cursor (it would never end)`);
      cursors.add(next);
      cursor = next;
    }
  } catch (err) {
    const why = unreachable(err, connection.takeCut());
    if (why.tooLarge !== undefined) connection.drop();
    return fail(why.message);
  }
  return { ok: true, items };
}
