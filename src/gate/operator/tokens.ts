/**
 * A person's bearer tokens for MCP over HTTP: made, listed and revoked. A
 * token is handed back once, when it is made; only its sha256 is stored, and
 * a listing never carries even that.
 */
import { randomBytes } from "node:crypto";
import { checkAgentName } from "../../core/agentName.ts";
import { formatDuration, parseDuration } from "../../core/duration.ts";
import { RtaError } from "../../core/errors.ts";
import type { Deps } from "../deps.ts";
import type { Token } from "../gateStore.ts";
import { hashToken } from "../store/tokens.ts";
import { issuer } from "./issuer.ts";
import type { Selection } from "./selection.ts";

/** 32 random bytes: guessing one is not a plan. */
const TOKEN_BYTES = 32;
/** Says what the secret is wherever it turns up; the redactor knows it by this. */
const PREFIX = "rta_";

/**
 * How long a token lasts when --ttl is left out: a quarter, so a token
 * forgotten in a config file does not open the server for good. The team
 * policy's max_token_ttl shortens it.
 */
export const DEFAULT_TOKEN_TTL_MS = 90 * 86_400_000;

/** A token as a person asked for it. */
export interface TokenRequest {
  agent: string;
  /** how long it is taken, e.g. "30d"; left out, DEFAULT_TOKEN_TTL_MS or the policy's max_token_ttl, the shorter */
  ttl?: string;
}

/**
 * How long the token asked for lasts, in ms. Refuses a bad duration
 * (core.input.*), one past the team policy's max_token_ttl
 * (core.grant.ceiling) and a policy that does not read (core.policy.unreadable).
 */
export function tokenTtl(deps: Deps, ttl: string | undefined): number {
  const asked = ttl !== undefined ? parseDuration(ttl) : undefined;
  const cap = deps.policy.current().maxTokenTtl;
  if (asked === undefined) return cap === undefined ? DEFAULT_TOKEN_TTL_MS : Math.min(cap, DEFAULT_TOKEN_TTL_MS);
  if (cap !== undefined && asked > cap)
    throw new RtaError(
      "core.grant.ceiling",
      `the token would last longer than the team policy's max_token_ttl (${formatDuration(cap)})`,
      `make it with --ttl ${formatDuration(cap)} or less`,
    );
  return asked;
}

/**
 * Makes a token for the agent and returns it, with the row kept for it (which
 * holds only its hash). Refuses a malformed agent name (core.input.invalid),
 * what tokenTtl refuses, and a store it cannot write (core.store.unavailable).
 */
export function newToken(deps: Deps, req: TokenRequest): { token: string; row: Token } {
  checkAgentName(req.agent);
  const ttlMs = tokenTtl(deps, req.ttl);
  const now = deps.clock.now();
  const token = `${PREFIX}${randomBytes(TOKEN_BYTES).toString("base64url")}`;
  const row = deps.gate().addToken(req.agent, hashToken(token), now, now + ttlMs, issuer(deps.host));
  return { token, row };
}

export type TokenState = "live" | "revoked" | "expired";

/** What became of a token by `now`: revoked first, then expired; refuses nothing. */
function tokenState(t: Pick<Token, "revoked_at" | "expires_at">, now: number): TokenState {
  if (t.revoked_at !== null) return "revoked";
  if (t.expires_at !== null && t.expires_at <= now) return "expired";
  return "live";
}

/** A token as a listing shows it: everything but its hash, and its state. */
export type ListedToken = Omit<Token, "hash"> & { state: TokenState };

/** Every token, oldest first, without its hash, each with its state; refuses only a store it cannot open. */
export function listTokens(deps: Deps): { now: number; tokens: ListedToken[] } {
  const now = deps.clock.now();
  const tokens = deps
    .gate()
    .tokens()
    .map(({ hash: _hash, ...t }) => ({ ...t, state: tokenState(t, now) }));
  return { now, tokens };
}

/** Revokes the selected tokens and returns how many were live; refuses only a store it cannot write. */
export function revokeTokens(deps: Deps, by: Selection): number {
  return deps.gate().revokeTokens(by, deps.clock.now());
}
