/**
 * Stage 6, grant: what an agent may do beyond free reads. A write, a
 * destructive call, a read that reaches a destination the agent names and a
 * read that reveals a stored secret each spend one use of a live grant a
 * person issued, matched on capability (or area), agent and, where the grant
 * names them, record, connection, profile, host and the exact arguments.
 * The team ceiling is applied again here, in case the policy changed since
 * the grant was issued.
 */
import type { AgentOrigin, Call } from "../core/call.ts";
import { type Args, type Capability, needsGrant } from "../core/capability.ts";
import { formatDuration } from "../core/duration.ts";
import { RtaError } from "../core/errors.ts";
import { checkedHost, hostOf, parseUrl } from "../core/hostName.ts";
import { isIP } from "../core/lazyNet.ts";
import { shellWord, withArticle } from "../core/words.ts";
import { argsDigest } from "./argsDigest.ts";
import { type Grant, type GrantQuery, grantState, type StoreTables } from "./gateStore.ts";
import { gateTargets } from "./locks.ts";
import { classify, isSensitive } from "./net/addressClass.ts";
import { artifactDigest } from "./pluginDigest.ts";
import { checkCeiling, type Policy } from "./policy.ts";

/**
 * Returns the grant spent, or undefined for a free read; refuses with
 * core.grant.required or core.grant.ceiling, and with net.badhost a
 * destination no packet could go to, before any use is spent.
 */
export function spendGrant(
  cap: Capability,
  call: Call & { origin: AgentOrigin },
  args: Args,
  store: StoreTables,
  policySource: { current(): Policy },
  now: number,
): Grant | undefined {
  // Naming a profile needs a grant issued for that exact profile, whatever the capability's class.
  if (!needsGrant(cap) && call.profile === undefined) return undefined;
  // Read only for a call that needs a grant: a free read is not the ceiling's to stop.
  const policy = policySource.current();
  const q = grantQuery(cap, call, args, now);
  // What the ceiling says of the target and the agent holds whatever grant exists.
  checkCeiling(policy, { targets: q.targets, agent: q.agent, ttlMs: 0, maxUses: 0 });
  checkDestination(cap, args);
  const grant = store.spend(q);
  if (!grant)
    throw required(cap, q, store.lastMatching(q), now, q.digest !== null ? store.staleMatching(q) : undefined);
  try {
    checkCeiling(policy, {
      targets: q.targets,
      agent: q.agent,
      ttlMs: grant.expires_at - grant.issued_at,
      maxUses: grant.max_uses,
    });
  } catch (err) {
    store.giveBack(grant.id);
    throw err;
  }
  return grant;
}

/**
 * Refuses a call that waited its turn (a plugin's queue, behind a call that
 * may take its 60 s) once the grant it spent was revoked meanwhile
 * (core.grant.required), or the team ceiling changed so that it would not
 * pass now (core.grant.ceiling): what a person or the team policy takes back
 * stops what has not yet started, as a lock set meanwhile does. Else returns.
 */
export function checkStillGranted(
  cap: Capability,
  agent: string,
  id: string,
  store: StoreTables,
  policySource: { current(): Policy },
): void {
  const grant = store.get(id);
  if (grant === undefined || grant.revoked_at !== null) {
    throw new RtaError(
      "core.grant.required",
      `${cap.name} needs a grant for agent ${agent}: grant ${id} was revoked while the call waited its turn`,
      `a person can allow it by running \`rta grant allow ${cap.name} --agent ${shellWord(agent)} --ttl 5m\``,
    );
  }
  checkCeiling(policySource.current(), {
    targets: gateTargets(cap),
    agent,
    ttlMs: grant.expires_at - grant.issued_at,
    maxUses: grant.max_uses,
  });
}

/** What a call is matched against in the store: its targets, agent, narrowings and argument digest; refuses nothing. */
export function grantQuery(cap: Capability, call: Call & { origin: AgentOrigin }, args: Args, now: number): GrantQuery {
  const record = cap.record !== undefined && args[cap.record] !== undefined ? recordKey(cap, args[cap.record]) : null;
  const host = cap.reaches !== undefined ? hostOf(args[cap.reaches], cap.reaches === "url") : null;
  return {
    targets: gateTargets(cap),
    agent: call.origin.name,
    record,
    connection: call.connection ?? null,
    profile: call.profile ?? null,
    host,
    hostRequired:
      host !== null && (unchecked(cap) || (DIALLED.has(cap.reaches as string) && sensitiveAddress(host) !== undefined)),
    args_digest: argsDigest(args),
    digest: artifactDigest(cap),
    now,
  };
}

/**
 * The destination inputs a call connects to, which net/destination.ts holds to
 * the address rules: a `host` or a `url`. A `name` (net.dns) or a `domain`
 * (audit.mail) is looked up through a DNS server, never dialled, so a
 * hostless grant covers any of them.
 */
const DIALLED = new Set(["host", "url"]);

/**
 * Whether the destination a call names is reached where rta cannot hold it
 * to the address rules: a plugin resolves and connects in its own process,
 * so a name that resolves to a loopback, private or metadata address is
 * never caught as it is for a built-in. Only a grant naming the host covers
 * such a call.
 */
function unchecked(cap: Capability): boolean {
  return cap.plugin !== undefined;
}

/**
 * A destination no packet could be sent to (no URL, another scheme, a URL
 * carrying credentials, no host name or address) is refused as net.badhost,
 * in the capability's own words, before a use is spent on a call that could
 * not run. Only the first destination is known here; a redirect's is checked
 * as it is followed, once a request has gone out.
 */
function checkDestination(cap: Capability, args: Args): void {
  const value = cap.reaches !== undefined ? args[cap.reaches] : undefined;
  if (typeof value !== "string" || !DIALLED.has(cap.reaches as string)) return;
  checkedHost(cap.reaches === "url" ? parseUrl(value).hostname : value);
}

/**
 * The kind of a loopback, private, link-local or metadata address that a call
 * names outright, which only a grant naming it may reach (see
 * net/destination.ts): no hostless grant is spent on it. `localhost` and the
 * names under it are loopback wherever they are looked up (RFC 6761), so they
 * are named outright too. Any other name that resolves to such an address is
 * only known once it is resolved, when the call runs; that lookup has left the
 * machine, and the use it spent stays spent.
 */
function sensitiveAddress(host: string): string | undefined {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (isIP(host) === 0) return undefined;
  const kind = classify(host);
  return isSensitive(kind) ? kind : undefined;
}

/**
 * The record a grant is narrowed to, as it is compared: a path is compared
 * written plainly, so `./notes/a.md` and `notes//a.md` are `notes/a.md`. A
 * `..` is kept: past a link it need not undo the name before it.
 */
export function recordKey(cap: Capability, value: unknown): string {
  const text = String(value);
  if (cap.record === undefined || cap.inputs[cap.record]?.path === undefined || text === "") return text;
  const plain = text
    .split("/")
    .filter((part) => part !== "" && part !== ".")
    .join("/");
  return text.startsWith("/") ? `/${plain}` : plain || ".";
}

function required(cap: Capability, q: GrantQuery, last: Grant | undefined, now: number, stale?: Grant): RtaError {
  if (stale !== undefined && (last === undefined || grantState(last, now) !== "live")) return changed(cap, q, stale);
  let why = "";
  const kind = q.hostRequired && q.host !== null ? sensitiveAddress(q.host) : undefined;
  const state = last !== undefined ? grantState(last, now) : undefined;
  if (last && state === "revoked") why = `: grant ${last.id} was revoked`;
  else if (last && state === "expired") why = `: grant ${last.id} expired ${formatDuration(now - last.expires_at)} ago`;
  else if (last && state === "spent") why = `: grant ${last.id} was spent (${last.uses} of ${last.max_uses} uses)`;
  else if (kind !== undefined)
    why = ` naming ${q.host}, ${withArticle(kind)} address a grant for any host does not reach`;
  else if (q.hostRequired && unchecked(cap))
    why = ` naming ${q.host}: plugin ${cap.plugin?.name} connects where rta cannot check the address, so a grant for any host does not reach it`;
  return new RtaError(
    "core.grant.required",
    `${cap.name} needs a grant for agent ${q.agent}${why}`,
    `a person can allow it by running \`${allowCommand(cap, q)}\``,
  );
}

/** A live grant that stands on another build of the plugin covers nothing: said with what to run. */
function changed(cap: Capability, q: GrantQuery, stale: Grant): RtaError {
  if (cap.upstream !== undefined)
    return new RtaError(
      "core.grant.required",
      `${cap.name} needs a grant for agent ${q.agent}: grant ${stale.id} was issued before upstream ${cap.upstream.name} was approved as it is now`,
      `a tool approved again is covered by no grant issued before: a person can grant again: \`${allowCommand(cap, q)}\``,
    );
  const plugin = cap.plugin?.name ?? cap.area;
  const was = stale.digest === null ? `the built-in ${cap.area}` : `plugin ${plugin} as it was then`;
  // a grant from before the area became a plugin: nothing changed that `pkg verify` would show
  const hint =
    stale.digest === null
      ? `${cap.area} was built into rta when the grant was issued and is a plugin now, so it covers nothing: a person can grant again: \`${allowCommand(cap, q)}\``
      : `the plugin ${plugin} changed since the grant was issued, so it covers nothing: a person can run \`rta pkg verify\` to see the change, and, trusting the new binary, \`rta pkg install\` it and grant again: \`${allowCommand(cap, q)}\``;
  return new RtaError(
    "core.grant.required",
    `${cap.name} needs a grant for agent ${q.agent}: grant ${stale.id} was issued for ${was}`,
    hint,
  );
}

/**
 * The narrowest command that would let this call through. A record the agent
 * chose that begins with '-' would be read as an option (a path named
 * `--agent=claude` left the grant with no record, so it allowed every path):
 * it goes last, after `--`, which ends the options.
 */
export function allowCommand(cap: Capability, q: GrantQuery): string {
  const words = ["rta", "grant", "allow", cap.name];
  const asOption = q.record?.startsWith("-") === true;
  if (q.record !== null && !asOption) words.push(shellWord(q.record));
  words.push("--agent", shellWord(q.agent), "--ttl", "5m");
  if (q.host !== null) words.push("--host", shellWord(q.host));
  if (q.connection !== null) words.push("--connection", shellWord(q.connection));
  if (q.profile !== null) words.push("--profile", shellWord(q.profile));
  if (q.record !== null && asOption) words.push("--", shellWord(q.record));
  return words.join(" ");
}
