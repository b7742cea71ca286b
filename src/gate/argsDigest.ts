/**
 * The digest that binds a grant to one exact call (`rta grant allow … --args`):
 * sha256 of the arguments as the call runs with them (defaults filled), in a
 * canonical JSON form, so key order and a default left out do not matter.
 */
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { canonical } from "../core/canonical.ts";

export function argsDigest(args: Record<string, unknown>): string {
  return createHash("sha256").update(canonical(args)).digest("hex");
}

/**
 * The host a destination argument names, as a grant's --host is compared
 * with it: a URL's host name when the input is a URL, else the name itself.
 * Either way it is spelled as the URL parser spells it (lowercase, no final
 * dot, no brackets, an address in its canonical form), so a grant and the
 * connection see one host. A value that is no host at all is returned as it
 * was, lowercased: it matches no grant, and the capability refuses it.
 */
export function hostOf(value: unknown, asUrl = false): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim();
  if (asUrl) {
    try {
      return canonicalHost(new URL(text).hostname);
    } catch {
      return text.toLowerCase();
    }
  }
  // a name in any script is compared in its ASCII form (bücher.de is xn--bcher-kva.de), as a URL's would be
  if (!/^[\p{L}\p{N}._:[\]-]+$/u.test(text)) return text.toLowerCase();
  try {
    return canonicalHost(
      new URL(`http://${text.includes(":") && !text.startsWith("[") ? `[${text}]` : text}`).hostname,
    );
  } catch {
    return text.toLowerCase();
  }
}

const HOST = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?$/;

/** Whether a host as hostOf spells it is a name (labels of letters, digits, '-' and '_') or an IP address. */
export function isHostOrAddress(host: string): boolean {
  return isIP(host) !== 0 || HOST.test(host);
}

function canonicalHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}
