/**
 * What a person's grant or lock names: a capability or an area the catalogue
 * offers. Never-a-tool verbs are in neither, so no grant or lock can name one.
 */
import type { Capability } from "../../core/capability.ts";
import type { Catalogue } from "../../core/catalogue.ts";
import { RtaError } from "../../core/errors.ts";
import { movedHint } from "../../core/movedAreas.ts";
import { closest, didYouMean } from "../../core/suggest.ts";

/** The capability or the area `target` names; refuses any other name as core.tool.unknown. */
export function resolveTarget(catalogue: Catalogue, target: string): { cap?: Capability; area?: string } {
  const cap = catalogue.byName(target);
  if (cap) return { cap };
  if (catalogue.areas().includes(target)) return { area: target };
  throw new RtaError(
    "core.tool.unknown",
    `no capability or area is named ${JSON.stringify(target)}`,
    // an area built in before and a plugin now (note) is named with how to install it
    movedHint(catalogue, target.split(".")[0] as string) ??
      `${didYouMean(closest(target, [...catalogue.areas(), ...catalogue.all().map((c) => c.name)]))} run \`rta explain\` to list them`.trimStart(),
  );
}
