/**
 * The digest that binds a grant to one exact call (`rta grant allow … --args`):
 * sha256 of the arguments as the call runs with them (defaults filled), in a
 * canonical JSON form, so key order and a default left out do not matter.
 */
import { createHash } from "node:crypto";
import { canonical } from "../core/canonical.ts";

export function argsDigest(args: Record<string, unknown>): string {
  return createHash("sha256").update(canonical(args)).digest("hex");
}

/** The host a destination argument names: a URL's host name, or the name itself, lowercased, without a final dot. */
export function hostOf(value: unknown): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      return new URL(text).hostname
        .replace(/^\[|\]$/g, "")
        .replace(/\.$/, "")
        .toLowerCase();
    } catch {
      return text.toLowerCase();
    }
  }
  return text.replace(/\.$/, "").toLowerCase();
}
