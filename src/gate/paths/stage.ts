/**
 * Stage 10, paths: every path argument is opened under a root by the path
 * gate before the capability runs, and the capability is handed what was
 * opened, never a string to open again. A person's own calls use the whole
 * file system; an agent's, the server's roots and the capability's declared
 * defaults, with rta's own dirs withheld.
 */
import { resolve } from "node:path";
import type { GatedPath, OpenOptions, PathIntent } from "../../core/access.ts";
import type { Args, Capability, InputSpec } from "../../core/capability.ts";
import { inputEntries } from "../values.ts";
import type { OpenedPath } from "./handles.ts";
import type { OwnPlaces } from "./ownPlaces.ts";
import { PathGate } from "./pathGate.ts";
import type { LookedDir } from "./placesMemo.ts";
import { type GateRules, type Keeper, PERSON_RULES } from "./rules.ts";

/**
 * One call's view of a gate: its handles ask about rta's places against one
 * look at them, however much a walk asks. A person's paths are opened from
 * `cwd` and shown as they were typed.
 */
export class CallPaths implements Keeper {
  private places: OwnPlaces | undefined;

  constructor(
    private readonly gate: PathGate,
    private readonly cwd?: string,
  ) {}

  get rules(): GateRules {
    return this.gate.rules;
  }

  own(looked?: readonly LookedDir[]): OwnPlaces {
    this.places ??= this.gate.own(looked);
    return this.places;
  }

  /** Opens `sent` through the gate, with its refusals; the caller closes what it is given. */
  open(sent: string, intent: PathIntent, options?: OpenOptions): OpenedPath {
    if (this.cwd === undefined) return this.gate.open(sent, intent, options, this);
    // Opened from the current directory, but shown as the person typed it.
    const opened = this.gate.open(resolve(this.cwd, sent), intent, options, this);
    opened.sent = sent;
    return opened;
  }
}

/** An agent's call's view of the server's gate (see CallPaths). Refuses nothing itself. */
export function accessOf(gate: PathGate): CallPaths {
  return new CallPaths(gate);
}

/** The view a person's own calls use: the whole file system from the current directory, nothing withheld. */
export function personAccess(cwd = process.cwd()): CallPaths {
  return new CallPaths(new PathGate(["/"], PERSON_RULES), cwd);
}

/**
 * The same gate with roots added after the server's: a capability's declared defaults, or the roots a client
 * offers, with `withheld` kept as rta's own places too (the registration files in a client's roots). Refuses
 * nothing.
 */
export function withRoots(
  gate: PathGate,
  extra: readonly string[] | undefined,
  withheld: readonly string[] = [],
): PathGate {
  if (!extra || extra.length === 0) return gate;
  const rules =
    withheld.length === 0
      ? gate.rules
      : { ...gate.rules, withheld: [...new Set([...gate.rules.withheld, ...withheld.map((p) => resolve(p))])] };
  return new PathGate([...gate.roots, ...extra.filter((r) => !gate.roots.includes(r))], rules, gate.pins);
}

/** Whether opening this call's paths may make directories on the way (a write with `parents`). */
export function mayMakeParents(cap: Capability, args: Args): boolean {
  return Object.values(cap.inputs).some((spec) => spec.path && makesParents(spec, args));
}

/** Whether this input's path is opened with its missing parents made: its `parentsFrom` flag is set. */
function makesParents(spec: InputSpec, args: Args): boolean {
  return spec.parentsFrom !== undefined && args[spec.parentsFrom] === true;
}

/**
 * Opens every path argument of the call, in the order declared; refuses with
 * the gate's core.path.* (or fs.notfound) at the first it will not open,
 * having closed those it had opened.
 */
export function openPaths(cap: Capability, args: Args, access: CallPaths): Record<string, OpenedPath> {
  const opened: Record<string, OpenedPath> = {};
  try {
    for (const [name, spec] of inputEntries(cap)) {
      const value = args[name];
      if (spec.path && typeof value === "string") {
        opened[name] = access.open(value, spec.path, { makeParents: makesParents(spec, args) });
      }
    }
  } catch (err) {
    closePaths(opened);
    throw err;
  }
  return opened;
}

/** Closes what openPaths opened, once the run is over. Refuses nothing. */
export function closePaths(opened: Record<string, OpenedPath>): void {
  for (const p of Object.values(opened)) closeGated(p);
}

/** Closes what the gate opened for a path; one already closed is let be. Refuses nothing. */
export function closeGated(p: GatedPath): void {
  try {
    (p as OpenedPath).close();
  } catch {
    // already closed
  }
}
