/**
 * A person's locks, the instant no: set, listed and lifted. A lock stops the
 * calls it covers, free reads included, from the next call of a server
 * already running (stage 4, gate/locks.ts).
 */
import { optionalAgentName } from "../../core/agentName.ts";
import type { Catalogue } from "../../core/catalogue.ts";
import { parseDuration } from "../../core/duration.ts";
import type { Deps } from "../deps.ts";
import type { Lock } from "../gateStore.ts";
import { issuer } from "./issuer.ts";
import type { Selection } from "./selection.ts";
import { resolveTarget } from "./target.ts";

/** A lock as a person asked for it: left out, a target is everything and an agent every agent. */
export interface LockRequest {
  target?: string;
  agent?: string;
  /** how long it holds, e.g. "1h"; left out, until lifted */
  ttl?: string;
}

/**
 * Sets the lock asked for and returns it with the time it was set at. Refuses
 * a malformed agent name (core.input.invalid), an unknown target
 * (core.tool.unknown), a bad duration (core.input.*) and a store it cannot
 * write (core.store.unavailable, naming the process that holds it).
 */
export function lock(deps: Deps, catalogue: Catalogue, req: LockRequest): { lock: Lock; now: number } {
  const agent = optionalAgentName(req.agent);
  if (req.target !== undefined) resolveTarget(catalogue, req.target);
  const now = deps.clock.now();
  const store = deps.gate();
  const l = store.lock({
    agent: agent ?? null,
    target: req.target ?? null,
    issued_at: now,
    expires_at: req.ttl !== undefined ? now + parseDuration(req.ttl) : null,
    issued_by: issuer(deps.host),
  });
  return { lock: l, now };
}

export type LockState = "active" | "lifted" | "expired";

/** What became of a lock by `now`: lifted first, then expired; refuses nothing. */
export function lockState(l: Lock, now: number): LockState {
  if (l.lifted_at !== null) return "lifted";
  if (l.expires_at !== null && l.expires_at <= now) return "expired";
  return "active";
}

/** Every lock, oldest first, each with its state; refuses only a store it cannot open. */
export function listLocks(deps: Deps): { now: number; locks: (Lock & { state: LockState })[] } {
  const now = deps.clock.now();
  return {
    now,
    locks: deps
      .gate()
      .locks()
      .map((l) => ({ ...l, state: lockState(l, now) })),
  };
}

/** Lifts the selected locks and returns how many were active; refuses only a store it cannot write. */
export function lift(deps: Deps, by: Selection): number {
  return deps.gate().lift(by, deps.clock.now());
}
