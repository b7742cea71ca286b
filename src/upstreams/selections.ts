/**
 * Config's `select` of each upstream, as a server offers it: each selected
 * definition a discovery found, judged against the approval (offered, or
 * withheld with why), or left out with why (its family failed, the upstream
 * does not list it, its name or a control character in it); and the one view
 * the MCP front asks: the listings, and the read a URI or prompt name stands for.
 */
import { selectionKey, type UpstreamConfig } from "../core/configUpstreams.ts";
import { OWN_PROMPT_NAMES } from "../core/prompts.ts";
import { type Approval, reachOf, type Withheld, wholeWithheld } from "./approval.ts";
import type { CatalogFound, SelectedDefinition } from "./catalog.ts";
import {
  type ExposedItem,
  exposedName,
  itemFault,
  promptListings,
  type ReadUpstream,
  type Routed,
  resourceListings,
  routePrompt,
  routeResource,
  templateListings,
} from "./exposed.ts";

/** One selection as `rta upstream list` says it. */
export interface SelectionState {
  key: string;
  exposed?: string;
  withheld?: string;
  leftOut?: string;
}

/** What the MCP front asks of the upstreams' selections. */
export interface Selections {
  resources(): ReturnType<typeof resourceListings>;
  templates(): ReturnType<typeof templateListings>;
  prompts(): ReturnType<typeof promptListings>;
  /** the read `uri` stands for; undefined for a URI not under rta://upstream/ */
  resource(uri: string): Routed | undefined;
  /** the get `name` stands for; undefined for a name that is no upstream prompt offered or withheld */
  prompt(name: string, args: Record<string, unknown>): Routed | undefined;
}

/** The view over the items as `items()` gives them at each ask, each read by `read`. Refuses nothing. */
export function exposedItems(items: () => readonly ExposedItem[], read: ReadUpstream): Selections {
  return {
    resources: () => resourceListings(items()),
    templates: () => templateListings(items()),
    prompts: () => promptListings(items()),
    resource: (uri) => routeResource(items(), uri, read),
    prompt: (name, args) => routePrompt(items(), name, args, read),
  };
}

/**
 * Each selected definition found now, judged against the approval as a tool
 * is: offered when approved as it is; withheld when the upstream is not
 * approved, its executable changed (`whole`), or it is new or changed since.
 * Refuses nothing.
 */
export function judgedSelected(
  name: string,
  selected: readonly SelectedDefinition[],
  approval: Approval | undefined,
  whole: Withheld | undefined,
): Map<string, Withheld | undefined> {
  const hint = `rta upstream approve ${name}`;
  const was = new Map((approval?.selected ?? []).map((s) => [s.key, s.digest]));
  const out = new Map<string, Withheld | undefined>();
  for (const s of selected) {
    const digest = was.get(s.key);
    if (approval === undefined || whole !== undefined)
      out.set(
        s.key,
        whole ?? { tool: s.key, code: "upstream.quarantined", reason: `not approved yet: a person runs \`${hint}\`` },
      );
    else if (digest === undefined)
      out.set(s.key, { tool: s.key, code: "upstream.quarantined", reason: `new since the approval: \`${hint}\`` });
    else if (digest !== s.digest)
      out.set(s.key, { tool: s.key, code: "upstream.changed", reason: `changed since the approval: \`${hint}\`` });
    else out.set(s.key, undefined);
  }
  return out;
}

/**
 * One upstream's selections as found (`catalog`, none when not discovered
 * yet, and `exe`, a stdio upstream's executable's digest then), judged
 * against its approval; refuses nothing.
 */
export function selections(
  config: UpstreamConfig,
  catalog: CatalogFound | undefined,
  exe: string | undefined,
  approval: Approval | undefined,
): { items: ExposedItem[]; listed: SelectionState[] } {
  const name = config.name;
  const items: ExposedItem[] = [];
  const listed: SelectionState[] = [];
  const whole = approval && wholeWithheld(name, exe, approval, config.transport.kind === "stdio", reachOf(config));
  const judged = judgedSelected(name, catalog?.selected ?? [], approval, whole);
  // rta's own prompts keep their names (the MCP front answers them first): an upstream's under one is not offered
  const taken = new Set<string>(OWN_PROMPT_NAMES);
  for (const s of config.select ?? []) {
    const key = selectionKey(s);
    const def = catalog?.selected.find((d) => d.key === key);
    if (def === undefined) {
      const why = catalog?.missing.find((m) => m.key === key)?.reason ?? "not discovered since it was selected";
      listed.push({ key, leftOut: why });
      continue;
    }
    const fault = itemFault(name, def, taken);
    const exposed = exposedName(name, def);
    if (fault !== undefined || exposed === undefined) {
      listed.push({ key, leftOut: fault ?? "it has no name rta can offer" });
      continue;
    }
    taken.add(exposed);
    const held = judged.get(key);
    items.push({ upstream: name, selected: def, exposed, ...(held ? { held } : {}) });
    listed.push({ key, exposed, ...(held ? { withheld: held.reason } : {}) });
  }
  return { items, listed };
}
