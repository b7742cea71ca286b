/**
 * A URL followed through its redirects, up to five hops, each listed. Each
 * host is resolved once for the whole call and connected to at that address;
 * a hop to another host is followed only where the network the call was
 * handed allows it (for an agent, what its grant names). Shared by http.get,
 * http.head and the audits that fetch a page or a policy.
 */
import type { Destination, Exchange } from "../../core/access.ts";
import type { RunContext } from "../../core/capability.ts";
import { normalHost, parseUrl } from "../../core/hostName.ts";
import { operatorCa } from "../net/operatorInputs.ts";

/** An HTTP body is cut here: more than a model can use, and the answer is bounded anyway. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_HOPS = 5;
const CONNECT_TIMEOUT_MS = 5000;
/** What the status, headers, hops and timing of an answer take beside its body, at most, as JSON. */
const HEADERS_ROOM = 24 * 1024;

/** What a fetch is told: seconds to wait, and the operator's DNS server and CA file. */
export interface FetchSettings {
  timeout?: number | undefined;
  server?: string | undefined;
  ca_file?: string | undefined;
}

export interface Fetched {
  final: URL;
  response: Exchange;
  hops: { url: string; status: number; location?: string }[];
  /** why the redirects stopped short, if they did */
  stopped?: string;
  destination: Destination;
  /** the body limit this call was held to */
  bodyLimit: number;
}

/**
 * Follows a URL through its redirects, one pinned address per host. Refuses
 * what ctx.net refuses (a destination the call may not reach, a timeout) and
 * core.config.invalid an unreadable CA file; a redirect it may not follow
 * ends the walk with `stopped` said, not with a refusal.
 */
export async function fetchFollowing(
  method: "GET" | "HEAD",
  start: URL,
  settings: FetchSettings,
  ctx: Pick<RunContext, "net" | "budget">,
): Promise<Fetched> {
  const timeoutMs = (settings.timeout ?? 10) * 1000;
  // A body is cut at 1 MiB, and for an agent to what its model is sent, less room for the headers around it.
  const maxBody = Math.max(1024, Math.min(BODY_LIMIT_BYTES, ctx.budget - HEADERS_ROOM));
  const limits = {
    connectMs: Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    headersMs: timeoutMs,
    bodyMs: timeoutMs,
    maxBody,
  };
  const ca = operatorCa(settings.ca_file);
  const pinned = new Map<string, Destination>();
  const hops: Fetched["hops"] = [];
  let url = start;
  for (;;) {
    const host = normalHost(url.hostname);
    let destination = pinned.get(host);
    if (!destination) {
      destination = await ctx.net.resolve(host, settings.server);
      pinned.set(host, destination);
    }
    const response = await ctx.net.request(method, url, destination, limits, ca);
    const location = response.headers.location;
    hops.push({ url: url.toString(), status: response.status, ...(location ? { location } : {}) });
    const fetched = { final: url, response, hops, destination, bodyLimit: maxBody };
    if (response.status < 300 || response.status >= 400 || !location) return fetched;
    if (hops.length > MAX_HOPS) return { ...fetched, stopped: `more than ${MAX_HOPS} redirects` };
    let next: URL;
    try {
      next = parseUrl(new URL(location, url).toString());
    } catch {
      return { ...fetched, stopped: "the redirect's Location is not an http(s) URL" };
    }
    const nextHost = normalHost(next.hostname);
    if (!ctx.net.mayFollow(host, nextHost)) {
      return { ...fetched, stopped: `the redirect leads to ${nextHost}, which the grant does not cover` };
    }
    url = next;
  }
}
