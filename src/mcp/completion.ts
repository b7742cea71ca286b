/**
 * completion/complete: what a client may offer while a person or an agent
 * fills a template's variable. From the schema: an enum's values and a
 * boolean's true and false. For a read's path variable, the names in the
 * directory typed so far, listed through the path gate's handle for it (the
 * same an fs.list of it would open): so only within the roots, and never an
 * entry the gate withholds (rta's own places). For the card template, the
 * capability names. At most 100, names only. A path is listed only when
 * the read's lock and rate limit let the agent list it now (gate/listingGate.ts).
 */
import type { Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import type { PathGate } from "../gate/paths/pathGate.ts";
import { accessOf, withRoots } from "../gate/paths/stage.ts";
import { CARD_TEMPLATE } from "./resources.ts";
import type { ReadTemplate } from "./templates.ts";

/** At most this many completion values are sent. */
export const MAX_COMPLETIONS = 100;

/** The most directory entries looked at for one path completion, past which hasMore is said without a total. */
const MAX_LOOKED_AT = 2000;

export type Completion = {
  values: string[];
  total?: number;
  hasMore: boolean;
};

const NONE: Completion = { values: [], total: 0, hasMore: false };

function capped(all: string[]): Completion {
  return { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS };
}

/**
 * The completion of `argument` for `ref`: a resource template's variable (the
 * card's, or a read's) or a prompt's argument (free text: nothing to offer).
 * `roots` is the agent's path gate as it stands; `mayList` says whether the
 * agent may be shown a listing for a read's capability now (a lock, a rate
 * limit). Refuses nothing: a reference rta does not have, a directory the gate
 * will not open, or a listing `mayList` refuses, has none.
 */
export function complete(
  ref: { type: string; uri?: string; name?: string },
  argument: { name: string; value: string },
  catalogue: Catalogue,
  templates: readonly ReadTemplate[],
  roots: () => PathGate,
  mayList: (cap: Capability) => boolean,
): Completion {
  if (ref.type !== "ref/resource") return NONE;
  const typed = argument.value;
  if (ref.uri === CARD_TEMPLATE) {
    if (argument.name !== "name") return NONE;
    return capped(
      catalogue
        .all()
        .map((c) => c.name)
        .filter((n) => n.startsWith(typed)),
    );
  }
  const template = templates.find((t) => t.uriTemplate === ref.uri);
  if (template === undefined || !Object.hasOwn(template.properties, argument.name)) return NONE;
  const schema = template.properties[argument.name] ?? {};
  if (Array.isArray(schema.enum)) return capped((schema.enum as string[]).filter((v) => v.startsWith(typed)));
  if (schema.type === "boolean") return capped(["false", "true"].filter((v) => v.startsWith(typed)));
  if (template.cap.inputs[argument.name]?.path === "read") {
    if (!mayList(template.cap)) return NONE;
    return pathCompletion(typed, withRoots(roots(), template.cap.defaultRoots));
  }
  return NONE;
}

/**
 * The entries of the directory `typed` names up to its last slash whose names
 * start with what follows it, each spelled as `typed` spells the directory,
 * a directory's with a slash after it. A relative path starts where an
 * agent's call's does (the first root).
 */
export function pathCompletion(typed: string, gate: PathGate): Completion {
  const slash = typed.lastIndexOf("/");
  const dir = slash < 0 ? "." : slash === 0 ? "/" : typed.slice(0, slash);
  const spelled = slash < 0 ? "" : typed.slice(0, slash + 1);
  const start = typed.slice(slash + 1);
  let opened: ReturnType<ReturnType<typeof accessOf>["open"]>;
  try {
    opened = accessOf(gate).open(dir, "read");
  } catch {
    return NONE; // outside the roots, withheld, missing or unreadable: nothing to offer
  }
  try {
    const listing = opened.intent === "read" ? opened.dir() : undefined;
    if (listing === undefined) return NONE;
    let names: string[];
    try {
      names = listing.names();
    } catch {
      return NONE; // opened, but its mode lets no one list it
    }
    const values: string[] = [];
    let total = 0;
    let looked = 0;
    for (const name of names) {
      // a hidden name is offered once what is typed starts it
      if (!name.startsWith(start) || (name.startsWith(".") && !start.startsWith("."))) continue;
      if (looked++ >= MAX_LOOKED_AT) return { values, hasMore: true };
      const entry = listing.entry(name);
      if (entry === undefined) continue; // gone, or withheld
      total++;
      if (values.length < MAX_COMPLETIONS) values.push(`${spelled}${name}${entry.stat.isDirectory() ? "/" : ""}`);
    }
    return { values, total, hasMore: total > values.length };
  } finally {
    opened.close();
  }
}
