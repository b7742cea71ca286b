/**
 * http.get and http.head: one request, its status, headers, timing and (for
 * GET) its body cut at 1 MiB with a line saying how much was left out.
 * Redirects are followed up to five hops, each listed; a hop to another host
 * is followed only when the grant covers that host. Each host is resolved
 * once for the whole call and connected to at that address.
 */
import { readFileSync } from "node:fs";
import { type Args, type CapabilityDecl, define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { cutAtWord } from "../../core/secrets.ts";
import { type Destination, normalHost, resolveDestination } from "./destination.ts";
import { type Exchange, exchange } from "./httpClient.ts";
import { caFileInput, dnsServerInput } from "./operatorInputs.ts";

/** An HTTP body is cut here: more than a model can use, and the answer is bounded anyway. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_HOPS = 5;
const CONNECT_TIMEOUT_MS = 5000;
/** What the status, headers, hops and timing of an answer take beside its body, at most, as JSON. */
const HEADERS_ROOM = 24 * 1024;

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

/** The operator's extra CA (PEM) for a connection with a private CA, read once per call. */
function caFrom(args: Args): string | undefined {
  if (typeof args.ca_file !== "string" || args.ca_file === "") return undefined;
  try {
    return readFileSync(args.ca_file, "utf8");
  } catch {
    throw new RtaError(
      "core.config.invalid",
      "the operator's CA file cannot be read",
      "the person running rta can fix ca_file in config.toml",
    );
  }
}

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

/** Follows a URL through its redirects, one pinned address per host, within what the grant covers. */
export async function fetchFollowing(
  method: "GET" | "HEAD",
  start: URL,
  args: Args,
  ctx: RunContext,
  capName: string,
): Promise<Fetched> {
  const timeoutMs = ((args.timeout as number | undefined) ?? 10) * 1000;
  // A body is cut at 1 MiB, and for an agent to what its model is sent, less room for the headers around it.
  const maxBody = Math.max(1024, Math.min(BODY_LIMIT_BYTES, ctx.budget - HEADERS_ROOM));
  const limits = {
    connectMs: Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    headersMs: timeoutMs,
    bodyMs: timeoutMs,
    maxBody,
  };
  const ca = caFrom(args);
  const pinned = new Map<string, Destination>();
  const hops: Fetched["hops"] = [];
  let url = start;
  for (;;) {
    const host = normalHost(url.hostname);
    let destination = pinned.get(host);
    if (!destination) {
      destination = await resolveDestination(host, ctx, args.server, capName);
      pinned.set(host, destination);
    }
    const response = await exchange(
      method,
      { url, address: destination.address, ...(ca ? { ca } : {}) },
      limits,
      ctx.signal,
    );
    const location = response.headers.location;
    hops.push({ url: url.toString(), status: response.status, ...(location ? { location } : {}) });
    if (response.status < 300 || response.status >= 400 || !location)
      return { final: url, response, hops, destination, bodyLimit: maxBody };
    if (hops.length > MAX_HOPS)
      return {
        final: url,
        response,
        hops,
        destination,
        bodyLimit: maxBody,
        stopped: `more than ${MAX_HOPS} redirects`,
      };
    let next: URL;
    try {
      next = parseUrl(new URL(location, url).toString());
    } catch {
      return {
        final: url,
        response,
        hops,
        destination,
        bodyLimit: maxBody,
        stopped: "the redirect's Location is not an http(s) URL",
      };
    }
    const nextHost = normalHost(next.hostname);
    const granted = ctx.grant?.host;
    if (ctx.origin.kind === "agent" && nextHost !== host && granted != null && granted !== nextHost) {
      return {
        final: url,
        response,
        hops,
        destination,
        bodyLimit: maxBody,
        stopped: `the redirect leads to ${nextHost}, which the grant does not cover`,
      };
    }
    url = next;
  }
}

function describeBody(r: Exchange, limit: number, ctx: RunContext): string {
  const type = r.headers["content-type"] ?? "";
  const textual =
    type === "" || /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i.test(type);
  const shown = textual ? r.body.toString("utf8") : `[${r.body.length} bytes of ${type}]`;
  if (!r.cut) return shown;
  // masked only whole, a URL's userinfo or a token the cut ran through would show its head: it goes instead,
  // and so does the head of one of rta's places, renamed only whole
  const body = textual ? (ctx.shown?.(cutAtWord(shown), "", true) ?? cutAtWord(shown)) : shown;
  const more = r.cutBytes === "unknown" ? "more" : `${r.cutBytes} more`;
  return `${body}\n[${more} bytes left out: the body is cut at ${limit < BODY_LIMIT_BYTES ? `${Math.floor(limit / 1024)} KiB` : "1 MiB"}]`;
}

const httpInputs: CapabilityDecl["inputs"] = {
  url: { type: "string", description: "the URL, http:// or https://", required: true, positional: true },
  timeout: {
    type: "integer",
    description: "seconds to wait for the headers, and again for the body",
    range: [1, 60],
    default: 10,
  },
  server: dnsServerInput,
  ca_file: caFileInput,
};

function httpCapability(method: "GET" | "HEAD"): ReturnType<typeof define> {
  const name = method === "GET" ? "http.get" : "http.head";
  return define({
    name,
    summary:
      method === "GET"
        ? "Fetch a URL: status, headers, timing and the body (cut at 1 MiB)"
        : "Ask a URL for its status and headers, without the body",
    agentText:
      "Redirects are followed up to five hops and each is listed; one to another host is followed only if the grant covers that host.",
    searchWords:
      method === "GET" ? ["curl", "wget", "download", "web request", "fetch"] : ["curl -I", "headers", "status code"],
    safety: "read",
    reaches: "url",
    inputs: httpInputs,
    result: { shape: "object" },
    examples: [
      {
        command: `rta http ${method === "GET" ? "get" : "head"} https://example.com/`,
        note: method === "GET" ? "fetch a page" : "its status and headers",
      },
    ],
    async run(args, ctx) {
      const start = parseUrl(String(args.url));
      const f = await fetchFollowing(method, start, args, ctx, name);
      const r = f.response;
      return object({
        url: start.toString(),
        final_url: f.final.toString(),
        address: f.destination.address,
        status: r.status,
        headers: r.headers,
        hops: f.hops,
        ...(f.stopped ? { redirect_stopped: f.stopped } : {}),
        timing: r.timing,
        ...(r.tls ? { tls: r.tls } : {}),
        ...(method === "GET" ? { body: describeBody(r, f.bodyLimit, ctx), body_bytes: r.body.length } : {}),
      });
    },
  });
}

export const httpGet = httpCapability("GET");
export const httpHead = httpCapability("HEAD");
