/**
 * The "which ones" of `grant revoke`, `lock lift` and `mcp token revoke`: one
 * id, every one of an agent's, or all of them, and exactly one of the three.
 */
import { checkAgentName } from "../core/agentName.ts";
import { Exit, RtaError } from "../core/errors.ts";
import type { Deps } from "../gate/deps.ts";
import type { Cli } from "./factory.ts";
import { wantsJson } from "./io.ts";
import { reportError } from "./report.ts";

export type Selection = { id: string } | { agent: string } | { all: true };

/** Refuses (core.input.missing) none or more than one way of choosing. */
export function selection(id: string | undefined, opts: { agent?: string; all?: boolean }, noun: string): Selection {
  const chosen = [id !== undefined, opts.agent !== undefined, opts.all === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new RtaError("core.input.missing", `say which ${noun}s`, `give one of: a ${noun} id, --agent NAME, or --all`);
  }
  return id !== undefined ? { id } : opts.agent !== undefined ? { agent: checkAgentName(opts.agent) } : { all: true };
}

export interface Ending {
  /** "grant", "lock", "token" */
  noun: string;
  /** "revoked", "lifted" */
  verb: string;
  /** the command that lists them, for the hint when none matched */
  lister: string;
  /** ends the chosen ones and says how many were live */
  act: (deps: Deps, by: Selection, now: number) => number;
}

/** Ends the chosen grants, locks or tokens, and says how many; none matching is core.grant.unknown. */
export function endSelected(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
  e: Ending,
): number {
  const { io } = cli;
  const json = opts.json === true;
  let by: Selection;
  try {
    by = selection(id, opts, e.noun);
  } catch (err) {
    return reportError(io, err as RtaError, json);
  }
  const deps = cli.deps();
  const n = e.act(deps, by, deps.clock.now());
  if (n === 0)
    return reportError(
      io,
      new RtaError("core.grant.unknown", `no live ${e.noun} matched`, `\`${e.lister}\` shows the ${e.noun}s there are`),
      json,
    );
  io.out(
    wantsJson(io, opts.json)
      ? `${JSON.stringify({ [e.verb]: n })}\n`
      : `${e.verb} ${n} ${e.noun}${n === 1 ? "" : "s"}\n`,
  );
  return Exit.ok;
}
