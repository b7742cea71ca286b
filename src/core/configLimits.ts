/**
 * The `[limits]` section of config.toml: how often an agent may call each
 * capability, held by gate/rateLimit.ts.
 *
 *   [limits]
 *   calls_per_minute = 600          # every capability, for each agent
 *   [limits.capabilities]
 *   "fs.read" = 120                 # one capability
 *   proc = 30                       # each capability of an area (a capability's own line wins)
 *
 * A capability or area is spelled as policy.toml's `never` spells it, so a
 * line that names no capability cannot look as if it limited one. Without
 * `calls_per_minute`, only the capabilities named are limited. A person's own
 * calls at the terminal are never limited.
 */

export interface RateLimits {
  /** calls a minute for any capability not named below; undefined: not limited */
  calls_per_minute?: number;
  /** a capability's dotted name or an area -> calls a minute */
  capabilities: Record<string, number>;
}

/** The most calls a minute a line may set: ten a millisecond is past any agent, and keeps the bucket's sums exact. */
export const MAX_CALLS_PER_MINUTE = 600_000;

/** How a capability or an area is spelled (as policy.toml's `never` spells them). */
const GATE_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*){0,2}$/;

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isRate = (v: unknown): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_CALLS_PER_MINUTE;
const RATE = `a whole number of calls a minute, from 1 to ${MAX_CALLS_PER_MINUTE}`;

/**
 * Reads the `[limits]` table; each thing that does not read is told to
 * `problem` (where, why) and left out, and undefined is returned when nothing
 * in it reads. Refuses nothing itself.
 */
export function parseLimits(value: unknown, problem: (where: string, why: string) => void): RateLimits | undefined {
  if (!isTable(value)) {
    problem("[limits]", "must be a table (calls_per_minute = 600, and [limits.capabilities])");
    return undefined;
  }
  const limits: RateLimits = { capabilities: {} };
  let fine = true;
  for (const [key, v] of Object.entries(value)) {
    if (key === "calls_per_minute") {
      if (isRate(v)) limits.calls_per_minute = v;
      else {
        problem("[limits] calls_per_minute", `must be ${RATE}`);
        fine = false;
      }
    } else if (key === "capabilities") {
      if (!isTable(v)) {
        problem("[limits.capabilities]", `must map capabilities or areas to ${RATE}`);
        fine = false;
        continue;
      }
      for (const [name, n] of Object.entries(v)) {
        const where = `[limits.capabilities] ${JSON.stringify(name)}`;
        if (!GATE_NAME.test(name)) {
          problem(where, "names no capability or area (write fs.read, not fs_read)");
          fine = false;
        } else if (!isRate(n)) {
          problem(where, `must be ${RATE}`);
          fine = false;
        } else limits.capabilities[name] = n;
      }
    } else {
      problem(`[limits] has no setting ${JSON.stringify(key)}`, "(calls_per_minute and capabilities are known)");
      fine = false;
    }
  }
  if (!fine) return undefined;
  // as the file reads: calls_per_minute first (`rta config show`)
  const { calls_per_minute, capabilities } = limits;
  return calls_per_minute === undefined ? { capabilities } : { calls_per_minute, capabilities };
}

/**
 * The calls a minute an agent may make to `capability` of `area`: its own
 * line, else its area's, else calls_per_minute; undefined when none is set.
 */
export function limitFor(limits: RateLimits, capability: string, area: string): number | undefined {
  const own = limits.capabilities;
  if (Object.hasOwn(own, capability)) return own[capability];
  if (Object.hasOwn(own, area)) return own[area];
  return limits.calls_per_minute;
}
