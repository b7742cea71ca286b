/**
 * Stage 1, resolve: the capability a call names. A person names it dotted
 * (`proc.list`), an agent by tool name (`proc_list`). A name that is no tool,
 * and a name that is never a tool, get the same answer, apart from the name
 * itself, so a probe learns nothing about what exists.
 */
import type { Call } from "../core/call.ts";
import type { Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";

export function resolve(call: Call, catalogue: Catalogue): Capability {
  const cap = call.origin.kind === "agent" ? catalogue.byTool(call.capability) : catalogue.byName(call.capability);
  if (cap) return cap;
  if (call.origin.kind === "agent") {
    throw new RtaError("core.tool.unknown", `unknown tool: ${call.capability}`);
  }
  throw new RtaError("core.tool.unknown", `unknown capability: ${call.capability}`, "run `rta explain` to list them");
}
