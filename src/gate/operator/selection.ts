/**
 * The "which ones" of revoking a grant or a token and lifting a lock: one id,
 * every one of an agent's, or all of them, and exactly one of the three.
 */
import { checkAgentName } from "../../core/agentName.ts";
import { RtaError } from "../../core/errors.ts";

export type Selection = { id: string } | { agent: string } | { all: true };

/** The one way of choosing given; refuses none or more than one (core.input.missing) and a bad agent name (core.input.invalid). */
export function selection(id: string | undefined, opts: { agent?: string; all?: boolean }, noun: string): Selection {
  const chosen = [id !== undefined, opts.agent !== undefined, opts.all === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new RtaError("core.input.missing", `say which ${noun}s`, `give one of: a ${noun} id, --agent NAME, or --all`);
  }
  return id !== undefined ? { id } : opts.agent !== undefined ? { agent: checkAgentName(opts.agent) } : { all: true };
}
