/**
 * Bearer tokens for MCP over HTTP, as a request presents them. A token is made
 * by the gate (gate/operator/tokens.ts) and printed once; only its sha256 is
 * stored. It names the agent: over HTTP a grant's --agent
 * is matched against the token's agent, not what the client calls itself.
 */
import { timingSafeEqual } from "node:crypto";
import type { StoreTables, Token } from "../gate/gateStore.ts";
import { hashToken } from "../gate/store/tokens.ts";

/**
 * The token an Authorization header carries, checked against the store. Only
 * `Bearer <token>` is taken. The stored hash is compared to the presented
 * one's in constant time.
 */
export function authenticate(header: string | null, store: StoreTables, now: number): Token | undefined {
  const m = header?.match(/^Bearer ([A-Za-z0-9_-]{8,200})$/);
  if (!m) return undefined;
  const hash = hashToken(m[1] as string);
  const token = store.tokenByHash(hash, now);
  if (!token) return undefined;
  return timingSafeEqual(Buffer.from(token.hash, "hex"), Buffer.from(hash, "hex")) ? token : undefined;
}
