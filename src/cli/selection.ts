/**
 * The "which ones" of `grant revoke`, `lock lift` and `mcp token revoke`: one
 * id, every one of an agent's, or all of them, and exactly one of the three.
 */
import { RtaError } from "../core/errors.ts";

export type Selection = { id: string } | { agent: string } | { all: true };

/** Refuses (core.input.missing) none or more than one way of choosing. */
export function selection(id: string | undefined, opts: { agent?: string; all?: boolean }, noun: string): Selection {
  const chosen = [id !== undefined, opts.agent !== undefined, opts.all === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new RtaError("core.input.missing", `say which ${noun}s`, `give one of: a ${noun} id, --agent NAME, or --all`);
  }
  return id !== undefined ? { id } : opts.agent !== undefined ? { agent: opts.agent } : { all: true };
}
