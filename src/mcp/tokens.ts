/**
 * Bearer tokens for MCP over HTTP. A token is printed once when it is made;
 * only its sha256 is stored. It names the agent: over HTTP a grant's --agent
 * is matched against the token's agent, not what the client calls itself.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { GateStore, Token } from "../gate/gateStore.ts";

/** 32 random bytes: guessing one is not a plan. */
const TOKEN_BYTES = 32;
const PREFIX = "rta_";

/** A new token: "rta_" and 32 random bytes in base64url. Shown once; only its hash is kept. */
export function newToken(): string {
  return `${PREFIX}${randomBytes(TOKEN_BYTES).toString("base64url")}`;
}

/** The sha256 of a token, in hex, as the store keeps it. Refuses nothing: any text has a hash. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * The token an Authorization header carries, checked against the store. Only
 * `Bearer <token>` is taken. The stored hash is compared to the presented
 * one's in constant time.
 */
export function authenticate(header: string | null, store: GateStore, now: number): Token | undefined {
  const m = header?.match(/^Bearer ([A-Za-z0-9_-]{8,200})$/);
  if (!m) return undefined;
  const hash = hashToken(m[1] as string);
  const token = store.tokenByHash(hash, now);
  if (!token) return undefined;
  return timingSafeEqual(Buffer.from(token.hash, "hex"), Buffer.from(hash, "hex")) ? token : undefined;
}
