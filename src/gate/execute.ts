/**
 * Stage 11, run: the capability's own work, with the call's origin, the
 * dependencies, an abort signal and a row writer held to the call's limits.
 * What it throws that is not an RtaError becomes `core.internal` in the
 * pipeline, with a bare message.
 */
import type { Call } from "../core/call.ts";
import type { Args, Capability, PathAccess } from "../core/capability.ts";
import type { Deps } from "../core/deps.ts";
import type { ResultValue } from "../core/result.ts";
import { type Limits, TableWriter } from "./bound.ts";
import type { GatedPath } from "./pathGate.ts";

export function execute(
  cap: Capability,
  args: Args,
  call: Call,
  deps: Deps,
  signal: AbortSignal,
  limits: Limits,
  paths: Record<string, GatedPath>,
  gate: PathAccess,
  grant: { host: string | null } | undefined,
): Promise<ResultValue> {
  return cap.run(args, {
    origin: call.origin,
    deps,
    signal,
    rows: (columns, kind = "table") => new TableWriter(columns, kind, limits),
    paths,
    gate,
    budget: limits.model,
    ...(grant ? { grant: { host: grant.host } } : {}),
    ...(call.origin.kind === "agent"
      ? { shown: (text: string, before?: string, cut?: boolean) => deps.redactor.shown(text, before, cut) }
      : {}),
  });
}
