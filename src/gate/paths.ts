/**
 * Stage 10, paths: every path argument is opened under a root by the path
 * gate before the capability runs, and the capability is handed what was
 * opened, never a string to open again. A person's own calls use the whole
 * file system; an agent's, the server's roots and the capability's declared
 * defaults, with rta's own dirs withheld.
 */
import type { Args, Capability, InputSpec, PathAccess } from "../core/capability.ts";
import { closeGated, type GatedPath } from "./pathGate.ts";

/** Whether opening this call's paths may make directories on the way (a write with `parents`). */
export function mayMakeParents(cap: Capability, args: Args): boolean {
  return Object.values(cap.inputs).some((spec) => spec.path && makesParents(spec, args));
}

/** Whether this input's path is opened with its missing parents made: its `parentsFrom` flag is set. */
function makesParents(spec: InputSpec, args: Args): boolean {
  return spec.parentsFrom !== undefined && args[spec.parentsFrom] === true;
}

export function openPaths(cap: Capability, args: Args, gate: PathAccess): Record<string, GatedPath> {
  const opened: Record<string, GatedPath> = {};
  try {
    for (const [name, spec] of Object.entries(cap.inputs)) {
      const value = args[name];
      if (spec.path && typeof value === "string") {
        opened[name] = gate.open(value, spec.path, { makeParents: makesParents(spec, args) });
      }
    }
  } catch (err) {
    closePaths(opened);
    throw err;
  }
  return opened;
}

export function closePaths(opened: Record<string, GatedPath>): void {
  for (const p of Object.values(opened)) closeGated(p);
}
