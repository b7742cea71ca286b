/**
 * One upstream as a process found it, as `rta upstream list`, doctor and a
 * server's own view show it: each tool offered under its name and safety
 * class, left out, noted or withheld with why.
 */
import type { Capability } from "../core/capability.ts";
import type { Withheld } from "./approval.ts";
import type { UpstreamTool } from "./discover.ts";
import type { SelectionState } from "./selections.ts";
import { type LeftOut, normalisedName } from "./tools.ts";

/** One upstream as this process found it. */
export interface LoadedUpstream {
  name: string;
  transport: "stdio" | "http";
  /** discovered now, known from the last discovery, failed with `reason`, or not approved yet */
  state: "ready" | "known" | "failed" | "unknown" | "quarantined";
  reason?: string;
  tools: {
    tool: string;
    name?: string;
    safety?: string;
    leftOut?: string;
    note?: string;
    withheld?: string;
    heldAs?: string;
  }[];
  /** each selection of config's `select`: offered under `exposed`, or withheld or left out with why */
  selected?: SelectionState[];
}

/** Each of `tools` as listed: offered as a capability, withheld, left out or noted, with why. Refuses nothing. */
export function listedToolsOf(
  upstream: string,
  tools: readonly UpstreamTool[],
  made: { caps: Capability[]; leftOut: LeftOut[]; notes: LeftOut[] },
  withheld: readonly Withheld[],
): LoadedUpstream["tools"] {
  // by name, not searched for each tool: an upstream may offer 10,000
  const heldBy = new Map(withheld.map((w) => [w.tool, w]));
  const capBy = new Map(made.caps.map((c) => [c.upstream?.tool, c]));
  const outBy = new Map(made.leftOut.map((l) => [l.tool, l]));
  const noteBy = new Map(made.notes.map((l) => [l.tool, l]));
  return tools.map((t) => {
    const held = heldBy.get(t.name);
    if (held !== undefined) {
      const as = normalisedName(t.name);
      return { tool: t.name, withheld: held.reason, ...(as !== undefined ? { heldAs: `${upstream}.${as}` } : {}) };
    }
    const cap = capBy.get(t.name);
    const out = outBy.get(t.name);
    const note = noteBy.get(t.name);
    return {
      tool: t.name,
      ...(cap ? { name: cap.name, safety: cap.safety } : {}),
      ...(out ? { leftOut: out.reason } : {}),
      ...(note ? { note: note.reason } : {}),
    };
  });
}
