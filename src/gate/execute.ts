/**
 * Stage 11, run: the capability's own work, handed what its call may use and
 * nothing of the gate's: its arguments, the opened paths, the network held to
 * what the caller and its grant may reach, a spawn for system tools, the
 * clock and the host's files, an abort signal and a row writer held to the
 * call's limits. Who calls and which grant paid stay here.
 * What it throws that is not an RtaError becomes `core.internal` in the
 * pipeline, with a bare message.
 */
import type { GatedPath, NetAccess, Offsite, Spawn } from "../core/access.ts";
import type { Call } from "../core/call.ts";
import type { Args, ArgsOf, Capability, Inputs, PathsOf, RunContext } from "../core/capability.ts";
import { identityFile } from "../core/dirs.ts";
import type { ResultValue } from "../core/result.ts";
import { type Limits, TableWriter } from "./bound.ts";
import type { Deps } from "./deps.ts";
import { checkStillGranted } from "./grants.ts";
import { checkLock } from "./locks.ts";
import { offsiteFor } from "./net/offsite.ts";

/** What one call's run is handed, beside its capability and arguments. */
export interface RunInputs {
  call: Call;
  deps: Deps;
  signal: AbortSignal;
  limits: Limits;
  paths: Record<string, GatedPath>;
  grant: { id: string; host: string | null } | undefined;
  /** a person's terminal, told what a long walk has seen (see RunContext.progress) */
  progress?: RunContext["progress"];
}

/**
 * Runs the capability with what stage 10 opened; refuses nothing itself (the run's own errors pass through).
 * The network, the offsite client, the spawn, the identity file's path and the row writer's columns are made
 * when the run first asks for them: most runs ask for none, and each was an object or two made per call.
 */
export function execute(cap: Capability, args: Args, run: RunInputs): Promise<ResultValue> {
  const { call, deps, limits, grant } = run;
  const agent = call.origin.kind === "agent" ? call.origin.name : undefined;
  let net: NetAccess | undefined;
  let offsite: Offsite | undefined;
  let spawn: Spawn | undefined;
  let identity: { file: string | undefined } | undefined;
  const ctx: RunContext = {
    signal: run.signal,
    rows: (columns, kind = "table") =>
      new TableWriter(columns === undefined ? declaredColumns(cap) : [...columns], kind, limits),
    paths: run.paths as PathsOf<Inputs>,
    get net() {
      net ??= deps.net({ agent, grantHost: grant?.host, capability: cap.name }, run.signal);
      return net;
    },
    get offsite() {
      offsite ??= offsiteFor(cap, args, { dataDir: deps.dirs.data, clock: deps.clock, signal: run.signal });
      return offsite;
    },
    get spawn() {
      spawn ??= deps.spawn(run.signal);
      return spawn;
    },
    budget: limits.model,
    clock: deps.clock,
    host: deps.host,
    dataDir: deps.dirs.data,
    get identityFile() {
      identity ??= { file: identityFile(deps.dirs) };
      return identity.file;
    },
  };
  // Set one by one, not spread in: a spread copies an object per call.
  if (run.progress && call.origin.kind === "person") ctx.progress = run.progress;
  if (call.origin.kind === "agent") {
    const origin = call.origin;
    ctx.shown = (text: string, before?: string, cut?: boolean) => deps.redactor.shown(text, before, cut);
    ctx.stillAllowed = () => {
      const store = deps.gate();
      checkLock(cap, origin, store, deps.clock.now());
      if (grant) checkStillGranted(cap, origin.name, grant.id, store, deps.policy);
    };
    ctx.lane = origin.name;
  }
  return cap.run(args as ArgsOf<Inputs>, ctx);
}

/** The columns a capability declares for its rows, a new list each time (a writer may keep what it is handed). */
function declaredColumns(cap: Capability): string[] {
  return cap.result.columns?.map((c) => c.name) ?? [];
}
