/**
 * The "which ones" of `grant revoke`, `lock lift` and `mcp token revoke`: the
 * choice is read by the gate (gate/operator/selection.ts), which also ends
 * them; this says how many, or that none was live.
 */
import { Exit, RtaError } from "../core/errors.ts";
import type { Deps } from "../gate/deps.ts";
import { type Selection, selection } from "../gate/operator/selection.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm } from "./io.ts";
import { reportError } from "./report.ts";

export interface Ending {
  /** "grant", "lock", "token" */
  noun: string;
  /** "revoked", "lifted" */
  verb: string;
  /** the command that lists them, for the hint when none matched */
  lister: string;
  /** ends the chosen ones and says how many were live */
  act: (deps: Deps, by: Selection) => number;
}

/**
 * Ends the chosen grants, locks or tokens, and says how many: a sentence on a
 * terminal, the number alone piped, `{"<verb>": n}` with --json. None
 * matching is core.grant.unknown.
 */
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
  const n = e.act(deps, by);
  if (n === 0)
    return reportError(
      io,
      new RtaError("core.grant.unknown", `no live ${e.noun} matched`, `\`${e.lister}\` shows the ${e.noun}s there are`),
      json,
    );
  const form = outputForm(io, opts.json);
  if (form === "json") io.out(jsonText(io, { [e.verb]: n }));
  else if (form === "plain") io.out(`${n}\n`);
  else io.out(`${e.verb} ${n} ${e.noun}${n === 1 ? "" : "s"}\n`);
  return Exit.ok;
}
