/**
 * The hash that chains a session's lines: sha256 over the previous line's
 * hash and this line's canonical JSON (every field but the hash, keys
 * sorted). Altering, removing or reordering a line breaks the chain from
 * there on.
 */
import { createHash } from "node:crypto";
import { canonical } from "../core/canonical.ts";

export function chainHash(prev: string, line: object): string {
  const { hash: _hash, ...rest } = line as Record<string, unknown>;
  return createHash("sha256").update(prev).update("\n").update(canonical(rest)).digest("hex");
}
