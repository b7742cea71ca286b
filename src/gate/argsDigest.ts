/**
 * The digest that binds a grant to one exact call (`rta grant allow … --args`):
 * sha256 of the arguments as the call runs with them (defaults filled), in a
 * canonical JSON form, so key order and a default left out do not matter.
 */
import { createHash } from "node:crypto";
import { canonical } from "../core/canonical.ts";

/** The hex sha256 of `args` in canonical JSON; refuses nothing (any JSON value digests). */
export function argsDigest(args: Record<string, unknown>): string {
  return createHash("sha256").update(canonical(args)).digest("hex");
}
