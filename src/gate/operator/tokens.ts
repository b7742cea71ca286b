/**
 * A person's bearer tokens for MCP over HTTP: made, listed and revoked. A
 * token is handed back once, when it is made; only its sha256 is stored, and
 * a listing never carries even that.
 */
import { randomBytes } from "node:crypto";
import { checkAgentName } from "../../core/agentName.ts";
import { parseDuration } from "../../core/duration.ts";
import type { Deps } from "../deps.ts";
import type { Token } from "../gateStore.ts";
import { hashToken } from "../store/tokens.ts";
import { issuer } from "./issuer.ts";
import type { Selection } from "./selection.ts";

/** 32 random bytes: guessing one is not a plan. */
const TOKEN_BYTES = 32;
/** Says what the secret is wherever it turns up; the redactor knows it by this. */
const PREFIX = "rta_";

/** A token as a person asked for it. */
export interface TokenRequest {
  agent: string;
  /** how long it is taken, e.g. "30d"; left out, for good (an empty one is no duration, and refused) */
  ttl?: string;
}

/**
 * Makes a token for the agent and returns it, with the row kept for it (which
 * holds only its hash). Refuses a malformed agent name (core.input.invalid), a
 * bad duration (core.input.*) and a store it cannot write (core.store.unavailable).
 */
export function newToken(deps: Deps, req: TokenRequest): { token: string; row: Token } {
  checkAgentName(req.agent);
  const now = deps.clock.now();
  const token = `${PREFIX}${randomBytes(TOKEN_BYTES).toString("base64url")}`;
  const row = deps
    .gate()
    .addToken(
      req.agent,
      hashToken(token),
      now,
      req.ttl !== undefined ? now + parseDuration(req.ttl) : null,
      issuer(deps.host),
    );
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
