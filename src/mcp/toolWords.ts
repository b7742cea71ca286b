/**
 * A hint as an agent reads it: capability names as tool names.
 */
import type { Catalogue } from "../core/catalogue.ts";

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
