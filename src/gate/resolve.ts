/**
 * Stage 1, resolve: the capability a call names. A person names it dotted
 * (`proc.list`), an agent by tool name (`proc_list`). A name that is no tool,
 * and a name that is never a tool, get the same answer, so a probe learns
 * nothing about what exists. An agent is not told back the name it sent:
 * echoed, it would pass through redaction, and a name that is one of rta's
 * places (its data dir, a root) would come back renamed while a wrong guess
 * comes back as sent, so a right guess would be confirmed. The record keeps
 * the name (cut to its bound) as the probe it was.
 */
import type { Call } from "../core/call.ts";
import type { Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";

/** The one answer to every name that is not a tool, whatever it was. */
export const UNKNOWN_TOOL = "unknown tool: no tool of this server has that name";

/** Stage 1: the capability a call names; refuses every other name with one answer (core.tool.unknown). */
export function resolve(call: Call, catalogue: Catalogue): Capability {
  const cap = call.origin.kind === "agent" ? catalogue.byTool(call.capability) : catalogue.byName(call.capability);
  if (cap) return cap;
  const held = call.origin.kind === "agent" ? catalogue.withheld(call.capability) : undefined;
  if (held !== undefined) {
    const upstream = call.capability.split("_")[0] as string;
    const what = held.code === "upstream.quarantined" ? "is not approved yet" : "changed since it was approved";
    throw new RtaError(
      held.code,
      `this tool of upstream ${upstream} ${what}, so it is withheld`,
      `a person can approve it by running \`rta upstream approve ${upstream}\``,
    );
  }
  if (call.origin.kind === "agent") {
    throw new RtaError("core.tool.unknown", UNKNOWN_TOOL, "tools/list names every tool this server offers");
  }
  throw new RtaError("core.tool.unknown", `unknown capability: ${call.capability}`, "run `rta explain` to list them");
}
