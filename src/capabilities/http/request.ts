/**
 * The one declaration http.get and http.head share: one request, its status,
 * headers, timing and (for GET) its body cut at 1 MiB with a line saying how
 * much was left out. Redirects are followed as follow.ts says.
 */
import type { Exchange } from "../../core/access.ts";
import { type Capability, define, type RunContext } from "../../core/capability.ts";
import { parseUrl } from "../../core/hostName.ts";
import { object } from "../../core/result.ts";
import { cutAtWord } from "../../core/secrets.ts";
import { caFileInput, dnsServerInput } from "../net/operatorInputs.ts";
import { BODY_LIMIT_BYTES, fetchFollowing } from "./follow.ts";

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

const httpInputs = {
  url: { type: "string", description: "the URL, http:// or https://", required: true, positional: true },
  timeout: {
    type: "integer",
    description: "seconds to wait for the headers, and again for the body",
    range: [1, 60],
    default: 10,
  },
  server: dnsServerInput,
  ca_file: caFileInput,
} as const;

/** The capability that sends `method` to a URL (http.get or http.head); its run refuses what fetchFollowing refuses. */
export function httpCapability(method: "GET" | "HEAD"): Capability<typeof httpInputs> {
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
      const start = parseUrl(args.url);
      const f = await fetchFollowing(method, start, args, ctx);
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
