/**
 * What a grant would cover, said before it is issued so the person who
 * issues it sees the price: the capabilities it lets an agent call (an area
 * as its list), each with its safety class, the hosts, the uses and the time.
 */
import type { Safety } from "../../core/capability.ts";
import type { Catalogue } from "../../core/catalogue.ts";
import type { GrantPlan } from "./grants.ts";

/** What a grant covers. */
export interface Coverage {
  target: string;
  capabilities: { name: string; safety: Safety }[];
  /**
   * the one host it is narrowed to; "any" when a capability it covers reaches hosts and none is named; "named" when
   * the only ones that reach hosts are plugins', which no grant naming no host covers; null when none reaches one
   */
  hosts: string | "any" | "named" | null;
  /** how many calls it pays for; null for any number until it expires */
  uses: number | null;
  ttlMs: number;
  /** whether a capability it covers is destructive */
  destructive: boolean;
}

/**
 * What the planned grant covers, from the catalogue and the policy it was
 * checked against (a capability the policy never grants is not covered: the
 * gate refuses it whatever grant exists); pure, refuses nothing (an unknown
 * target covers nothing).
 */
export function grantCoverage(catalogue: Catalogue, plan: GrantPlan): Coverage {
  const { target, host, max_uses } = plan.row;
  const one = catalogue.byName(target);
  const caps = (one ? [one] : catalogue.all().filter((c) => c.area === target)).filter(
    (c) => !plan.never.includes(c.name),
  );
  const reaching = caps.filter((c) => c.reaches !== undefined);
  // a plugin's reach is covered only by a grant naming the host (grants.ts)
  const hostless = reaching.length === 0 ? null : reaching.some((c) => c.plugin === undefined) ? "any" : "named";
  return {
    target,
    capabilities: caps.map((c) => ({ name: c.name, safety: c.safety })),
    hosts: host ?? hostless,
    uses: max_uses,
    ttlMs: plan.ttlMs,
    destructive: caps.some((c) => c.safety === "destructive"),
  };
}
