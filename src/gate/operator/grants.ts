/**
 * A person's grants: issued, listed and revoked. The gate owns these actions
 * so that every front (today the CLI) only parses what was typed and renders
 * what comes back. Issuing checks the request (grantRequest.ts), applies the
 * team ceiling and only then writes; a refusal writes nothing.
 */
import { version } from "../../../package.json";
import { checkAgentName, namesAgent, optionalAgentName } from "../../core/agentName.ts";
import type { Capability } from "../../core/capability.ts";
import type { Catalogue } from "../../core/catalogue.ts";
import { parseDuration } from "../../core/duration.ts";
import { argsDigest } from "../argsDigest.ts";
import type { Deps } from "../deps.ts";
import { type Grant, type GrantState, grantState, type NewGrant } from "../gateStore.ts";
import { recordKey } from "../grants.ts";
import { artifactDigest } from "../pluginDigest.ts";
import { checkCeiling } from "../policy.ts";
import { boundArgs, checkNarrowing, grantHost, maxUsesOf } from "./grantRequest.ts";
import { issuer } from "./issuer.ts";
import type { Selection } from "./selection.ts";
import { resolveTarget } from "./target.ts";

/** A grant as a person asked for it, every value as typed. */
export interface GrantRequest {
  /** a capability or an area */
  target: string;
  /** the one record it is narrowed to */
  record?: string;
  agent: string;
  /** how long it lasts, e.g. "5m" */
  ttl: string;
  maxUses?: string;
  connection?: string;
  profile?: string;
  host?: string;
  /** the exact call's arguments, as JSON */
  args?: string;
}

/** A grant checked and ready to write: every column but its times, and how long it lasts once issued. */
export interface GrantPlan {
  row: Omit<NewGrant, "issued_at" | "expires_at">;
  ttlMs: number;
  /** the capabilities the team policy never grants, as it read when the plan was checked: no grant covers them */
  never: readonly string[];
  /** the call an --args grant covers, as the person wrote it (compact JSON); its digest is what matches */
  args?: string;
}

/**
 * Checks the grant asked for and returns it ready to write; writes nothing.
 * Refuses: an unknown target (core.tool.unknown), a bad agent name, duration,
 * use count or narrowing (core.input.*), a grant the team ceiling caps
 * (core.grant.ceiling), a policy that does not read (core.policy.unreadable).
 */
export function planGrant(deps: Deps, catalogue: Catalogue, req: GrantRequest): GrantPlan {
  const { target, record } = req;
  const { cap } = resolveTarget(catalogue, target);
  checkAgentName(req.agent);
  const ttlMs = parseDuration(req.ttl);
  let maxUses = maxUsesOf(req.maxUses);
  checkNarrowing(target, cap, req);
  const host = req.host !== undefined ? grantHost(catalogue, target, cap, req.host) : null;
  const digest = req.args !== undefined ? argsDigest(boundArgs(catalogue, target, cap, req.args, deps.config)) : null;
  const policy = deps.policy.current();
  const targets = cap ? [cap.name, cap.area] : [target];
  if (maxUses === null && policy.maxUses !== undefined) maxUses = policy.maxUses;
  checkCeiling(policy, { targets, agent: req.agent, ttlMs, maxUses });
  const row = {
    target,
    record: record !== undefined && cap ? recordKey(cap, record) : null,
    agent: req.agent,
    connection: req.connection ?? null,
    profile: req.profile ?? null,
    host,
    args_digest: digest,
    max_uses: maxUses,
    issued_by: issuer(deps.host),
    build: `rta ${version}`,
    digest: pinnedDigest(catalogue, cap, target),
  };
  // As written, in one line: the defaults the digest is taken over are the gate's, not what the person typed.
  const args = req.args !== undefined ? JSON.stringify(JSON.parse(req.args)) : undefined;
  return { row, ttlMs, never: policy.never, ...(args !== undefined ? { args } : {}) };
}

/**
 * The plugin binary a grant is pinned to: the sha256 that described the
 * capability, or the area's plugin (a plugin's name is its area); null for a
 * built-in. Refuses nothing.
 */
export function pinnedDigest(catalogue: Catalogue, cap: Capability | undefined, target: string): string | null {
  const one = cap ?? catalogue.all().find((c) => c.area === target && (c.plugin || c.upstream));
  // an upstream's grant binds to its approval: a tool changed and approved since is covered by none issued before
  if (one?.upstream !== undefined) return one.upstream.pin ?? null;
  return one?.plugin?.digest ?? null;
}

/** Writes a planned grant, from now for its time, and returns it with now; refuses a store it cannot write (core.store.unavailable). */
export function issuePlanned(deps: Deps, plan: GrantPlan): { grant: Grant; now: number } {
  const now = deps.clock.now();
  const { issued_by, build, digest, ...asked } = plan.row;
  // In the order a grant's JSON has always had: a script may read it as text.
  const row = { ...asked, issued_at: now, expires_at: now + plan.ttlMs, issued_by, build, digest };
  const grant = deps.gate().issue(row, plan.args);
  return { grant, now };
}

/**
 * Issues the grant asked for and returns it with the time it was issued at.
 * Refuses what planGrant refuses, before anything is written, and a store it
 * cannot write (core.store.unavailable).
 */
export function issueGrant(deps: Deps, catalogue: Catalogue, req: GrantRequest): { grant: Grant; now: number } {
  return issuePlanned(deps, planGrant(deps, catalogue, req));
}

/** A grant as a listing shows it: its row, its state, and the arguments an --args grant was issued with (null for none or an older grant). */
export type ListedGrant = Grant & { state: GrantState; args: string | null };

/**
 * Every grant, oldest first, each with its state and its --args as written,
 * only `agent`'s (whatever its case) when one is named; refuses a malformed
 * agent name (core.input.invalid) before the store is opened.
 */
export function listGrants(deps: Deps, agent: string | undefined): { now: number; grants: ListedGrant[] } {
  const named = optionalAgentName(agent);
  const now = deps.clock.now();
  const gate = deps.gate();
  const args = gate.grantArgs();
  const grants = gate
    .list()
    .filter((g) => named === undefined || namesAgent(named, g.agent))
    .map((g) => ({ ...g, state: grantState(g, now), args: args.get(g.id) ?? null }));
  return { now, grants };
}

/**
 * For a grant pinned to a plugin binary that is no longer the installed one
 * (replaced, or removed), or issued for a built-in area that is a plugin's
 * now (or gone), the fix a listing shows beside it; undefined for a built-in's
 * grant and for one whose plugin is as it was. Refuses nothing.
 */
export function staleFix(catalogue: Catalogue, g: Grant): string | undefined {
  const cap = catalogue.byName(g.target) ?? catalogue.all().find((c) => c.area === g.target && c.plugin);
  const plugin = g.target.split(".")[0] as string;
  const upstream = cap?.upstream ?? catalogue.all().find((c) => c.area === g.target)?.upstream;
  if (upstream !== undefined)
    return (upstream.pin ?? null) === g.digest
      ? undefined
      : `upstream ${upstream.name} was approved again since it was issued: it covers nothing; grant again`;
  if (g.digest === null) {
    // issued for a built-in area that is a plugin's now (note): pinned to no binary, it covers nothing
    if (cap?.plugin !== undefined)
      return `issued for the built-in ${plugin}, a plugin now: it covers nothing; grant again`;
    const known = cap ?? catalogue.all().find((c) => c.area === g.target);
    if (known === undefined)
      return `${plugin} is no built-in any more: it covers nothing; \`rta pkg install\` its plugin and grant again, or revoke it`;
    return undefined;
  }
  if (cap?.plugin === undefined) return `plugin ${plugin} is not installed: it covers nothing; revoke it`;
  if (artifactDigest(cap) === g.digest) return undefined;
  return `plugin ${plugin} changed since it was issued: it covers nothing; run \`rta pkg verify\`, then grant again`;
}

/** Revokes the selected grants and returns how many were live; refuses only a store it cannot write. */
export function revoke(deps: Deps, by: Selection): number {
  return deps.gate().revoke(by, deps.clock.now());
}
