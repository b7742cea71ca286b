/**
 * How rta spells and checks a destination: a host as a grant's --host, a
 * connection and a TLS handshake all see it, and the URLs it fetches. Both
 * the gate (a grant's host, the address rules) and the capabilities that
 * reach (what they name in their answers) read a host through here, so the
 * two never disagree on a spelling. Refuses, as net.badhost, what is no host
 * and a URL no request could be sent to.
 */
import { RtaError } from "./errors.ts";
import { isIP } from "./lazyNet.ts";

/**
 * The host a destination argument names, as a grant's --host is compared
 * with it: a URL's host name when the input is a URL, else the name itself.
 * Either way it is spelled as the URL parser spells it (lowercase, no final
 * dot, no brackets, an address in its canonical form), so a grant and the
 * connection see one host. A value that is no host at all is returned as it
 * was, lowercased: it matches no grant, and the capability refuses it; what
 * is not a string, or blank, is null.
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

/** A host name or address as a grant and a TLS handshake see it: the URL parser's spelling (see hostOf); refuses nothing. */
export function normalHost(host: string): string {
  return hostOf(host) ?? host;
}

/** A host name or address, normalized; anything else is refused as net.badhost before any packet is sent. */
export function checkedHost(raw: string): string {
  const host = normalHost(raw);
  if (!isHostOrAddress(host)) {
    throw new RtaError(
      "net.badhost",
      `${JSON.stringify(raw)} is not a host name or address`,
      "send a host such as example.com or an address",
    );
  }
  return host;
}

/** An http(s) URL a request may be sent to; refuses as net.badhost what does not parse, another scheme, and credentials. */
export function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RtaError(
      "net.badhost",
      `${JSON.stringify(text)} is not a URL`,
      "send a full URL such as https://example.com/",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new RtaError("net.badhost", `${url.protocol} URLs are not fetched`, "send an http:// or https:// URL");
  if (url.username || url.password)
    throw new RtaError(
      "net.badhost",
      "a URL with a user name or password is not fetched",
      "send the URL without credentials",
    );
  return url;
}
