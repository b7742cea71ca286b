/**
 * The team ceiling: `policy.toml` in the config dir caps what a grant can do.
 *
 *   never = ["note.rm", "proc"]   # capabilities or areas no grant can reach
 *   max_ttl = "8h"                 # the longest a grant may last
 *   max_uses = 100                 # the most uses one grant may carry
 *   agents = ["claude", "cursor"]  # the only agents that may be granted anything
 *   max_token_ttl = "30d"          # the longest an HTTP token may last
 *   confirm = ["fs.rm", "proc.kill"]  # run only once a person accepts the call live, even under a grant
 *   consent_timeout = "2m"         # how long a person has to answer before it is a refusal
 *   ask_for_grants = true          # a call that wants a grant may ask the person for one
 *   grant_from = "terminal"        # grants, lock lifts and tokens only from a person's terminal
 *   consent = "operator"           # a call on the confirm list is asked at `rta operator`, not in the client
 *
 * It is applied when a grant is issued, and again at call time in case the
 * policy changed since. Its ceiling does not reach free reads (a lock does); its
 * confirm list does, so a policy that does not read refuses every agent call.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDuration } from "../core/duration.ts";
import { RtaError } from "../core/errors.ts";
import { type FileSeen, type ReadLook, Recheck, readLook, stillAsRead } from "../core/recheck.ts";

export const POLICY_FILE = "policy.toml";

export interface Policy {
  never: string[];
  /** ms, or undefined for no ceiling */
  maxTtl?: number;
  maxUses?: number;
  /** undefined: any agent */
  agents?: string[];
  /** ms an HTTP token may last at most, or undefined for no ceiling (a token still defaults to 90 days) */
  maxTokenTtl?: number;
  /** capabilities or areas a person accepts live, call by call (stage 9) */
  confirm?: string[];
  /** ms a person has to answer a consent prompt; CONSENT_TIMEOUT_MS when unset */
  consentTimeout?: number;
  /** a call refused for want of a grant may ask the person for one through the client */
  askForGrants?: boolean;
  /** where `rta grant allow`, `lock lift` and `mcp token new` must be run from; undefined: any shell, piped too */
  grantFrom?: GrantFrom;
  /** where a confirm-list call is asked: the client (the default, the operator channel when it cannot ask) or the operator */
  consent?: "client" | "operator";
}

/** The values grant_from takes: a person's interactive terminal, or the operator's approval in `rta operator`. */
export const GRANT_FROM = ["terminal", "operator"] as const;
export type GrantFrom = (typeof GRANT_FROM)[number];

export const NO_POLICY: Policy = { never: [] };

/** How long a person has to answer a consent prompt when the policy says nothing: two minutes. */
export const CONSENT_TIMEOUT_MS = 120_000;

/**
 * How a capability (`area.thing[.action]`), an area or a plugin is spelled. A
 * `never` entry is compared exactly, so one spelled otherwise (a tool's name,
 * `fs_write`; capitals; a space) would match nothing and stop nothing while
 * the team believed it did: such a file does not read.
 */
const GATE_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*){0,2}$/;

/** Reads and checks the policy text; refuses (core.policy.unreadable) what it cannot take, naming the key. */
export function parsePolicy(text: string): Policy {
  let raw: Record<string, unknown>;
  try {
    raw = Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw unreadable(`it is not TOML: ${(err as Error).message}`);
  }
  const policy: Policy = { never: [] };
  for (const [key, value] of Object.entries(raw)) {
    if (key === "never" || key === "agents" || key === "confirm") {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
        throw unreadable(`${key} must be a list of names`);
      const odd = key !== "agents" ? (value as string[]).find((v) => !GATE_NAME.test(v)) : undefined;
      if (odd !== undefined)
        throw unreadable(
          `${key} names ${JSON.stringify(odd)}, which no capability or area is called (write fs.write, not fs_write)`,
        );
      policy[key] = value as string[];
    } else if (key === "consent_timeout") {
      policy.consentTimeout = policyDuration(key, value, "2m");
    } else if (key === "ask_for_grants") {
      if (typeof value !== "boolean") throw unreadable("ask_for_grants must be true or false");
      policy.askForGrants = value;
    } else if (key === "grant_from") {
      if (!GRANT_FROM.includes(value as GrantFrom))
        throw unreadable(`grant_from must be "terminal" or "operator", not ${JSON.stringify(value)}`);
      policy.grantFrom = value as GrantFrom;
    } else if (key === "consent") {
      if (value !== "client" && value !== "operator") throw unreadable('consent must be "client" or "operator"');
      policy.consent = value;
    } else if (key === "max_ttl") {
      policy.maxTtl = policyDuration(key, value, "8h");
    } else if (key === "max_token_ttl") {
      policy.maxTokenTtl = policyDuration(key, value, "30d");
    } else if (key === "max_uses") {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
        throw unreadable("max_uses must be a whole number from 1");
      policy.maxUses = value;
    } else {
      throw unreadable(
        `it has no setting ${JSON.stringify(key)} (never, max_ttl, max_uses, agents, max_token_ttl, confirm, consent, consent_timeout, ask_for_grants and grant_from are known)`,
      );
    }
  }
  return policy;
}

/** A duration key's value in ms; refuses (core.policy.unreadable) what is no duration, or past the longest taken. */
function policyDuration(key: string, value: unknown, example: string): number {
  if (typeof value !== "string") throw unreadable(`${key} must be a duration such as "${example}"`);
  try {
    return parseDuration(value, key);
  } catch (err) {
    // past the longest duration taken, the message says so rather than that it is no duration
    const tooLong = err instanceof RtaError && err.code === "core.input.range";
    throw unreadable(tooLong ? err.message : `${key} ${JSON.stringify(value)} is not a duration such as "${example}"`);
  }
}

function unreadable(why: string): RtaError {
  return new RtaError(
    "core.policy.unreadable",
    `the team policy cannot be read: ${why}`,
    `fix ${POLICY_FILE} in rta's config dir; until then no grant or token is issued, and no agent call runs (its confirm list cannot be known)`,
  );
}

/**
 * Reads the policy from the config dir, again only when the file changed, and
 * looks at the file no more than once every RECHECK_MS (core/recheck.ts), so a
 * policy edited while a server runs holds from its first call that starts that
 * long after. A missing file is no ceiling; a file that does not read refuses
 * every grant until it does.
 */
export class PolicySource {
  private cached: { read: ReadLook; policy: Policy } | undefined;
  private readonly look: Recheck;

  constructor(
    readonly file: string,
    now?: () => number,
  ) {
    this.look = new Recheck(file, now);
  }

  static inConfigDir(configDir: string): PolicySource {
    return new PolicySource(join(configDir, POLICY_FILE));
  }

  current(): Policy {
    let st: FileSeen | undefined;
    try {
      // asked at every grant check, and most operators have no policy.toml: its absence is an answer, not an error
      st = this.look.stat();
    } catch (err) {
      throw unreadable((err as Error).message);
    }
    if (st === undefined) return NO_POLICY;
    if (this.cached && stillAsRead(this.cached.read, st)) return this.cached.policy;
    const readAt = Date.now();
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      throw unreadable(notRead(err));
    }
    const policy = parsePolicy(text);
    this.cached = { read: readLook(st, readAt), policy };
    return policy;
  }
}

/** Why the OS would not read the policy file (a directory in its place, no permission), said in words. */
function notRead(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "EISDIR") return "it is a directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return "the system would not read it";
}

/** The request a grant makes, as the ceiling sees it. */
export interface GrantShape {
  /** the capability name, its area, and its plugin when it has one */
  targets: string[];
  agent: string;
  ttlMs: number;
  maxUses: number | null;
}

/** Refuses, as core.grant.ceiling, a grant the policy caps; returns the uses the grant may carry. */
export function checkCeiling(policy: Policy, g: GrantShape): void {
  const never = g.targets.find((t) => policy.never.includes(t));
  if (never !== undefined) {
    throw ceiling(
      `the team policy says ${never} is never granted`,
      "no grant can reach it; ask whoever keeps the team policy",
    );
  }
  if (policy.agents && !policy.agents.includes(g.agent)) {
    throw ceiling(
      `the team policy does not let agent ${g.agent} be granted anything`,
      `the agents it names: ${policy.agents.join(", ")}`,
    );
  }
  if (policy.maxTtl !== undefined && g.ttlMs > policy.maxTtl) {
    throw ceiling("the grant would last longer than the team policy's max_ttl", "issue it with a shorter --ttl");
  }
  if (policy.maxUses !== undefined && (g.maxUses === null || g.maxUses > policy.maxUses)) {
    throw ceiling(
      `the team policy caps a grant at ${policy.maxUses} uses`,
      `issue it with --max-uses ${policy.maxUses} or fewer`,
    );
  }
}

function ceiling(message: string, hint: string): RtaError {
  return new RtaError("core.grant.ceiling", message, hint);
}
