/**
 * Stage 4, lock: the instant no. A lock a person set stops everything it
 * covers, free reads included, from the next call of a server already running.
 */
import type { AgentOrigin } from "../core/call.ts";
import type { Capability } from "../core/capability.ts";
import { RtaError } from "../core/errors.ts";
import type { StoreTables } from "./gateStore.ts";

/** Refuses (core.lock.locked) a call a person's active lock covers, naming the lock to lift; else returns. */
export function checkLock(cap: Capability, origin: AgentOrigin, store: StoreTables, now: number): void {
  const lock = store.lockFor(origin.name, gateTargets(cap), now);
  if (!lock) return;
  const what = lock.target ? `${lock.target} is locked` : "every capability is locked";
  const whom = lock.agent ? `for agent ${lock.agent}` : "for every agent";
  throw new RtaError(
    "core.lock.locked",
    `${what} ${whom}`,
    `a person stopped these calls; it holds until they lift it with \`rta lock lift ${lock.id}\``,
  );
}

/** What a grant or lock can name for a capability: itself and its area (and, later, its plugin). */
export function gateTargets(cap: Capability): string[] {
  return [cap.name, cap.area];
}
