/**
 * net.dns: resolves a name, through the operator's DNS server (a connection,
 * config) or the system's. A read that names a destination: an agent needs a
 * grant, which can name the one host. NXDOMAIN is a refusal of its own;
 * NODATA is an answer with no records, said as what it is.
 */
import { isIP, isIPv4, isIPv6 } from "node:net";
import type { RecordType } from "../../core/access.ts";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { dnsServerInput } from "./operatorInputs.ts";

/** The record types net.dns takes. */
export const RECORD_TYPES = [
  "A",
  "AAAA",
  "CNAME",
  "MX",
  "TXT",
  "NS",
  "SOA",
  "CAA",
  "SRV",
  "PTR",
] as const satisfies readonly RecordType[];

/** A host name as DNS takes it: labels of letters, digits, hyphens and underscores, or an address for PTR. */
const NAME =
  /^(?=.{1,253}\.?$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$/;

/** The name a PTR query asks for: 1.2.3.4 -> 4.3.2.1.in-addr.arpa; what is no address is returned as it is. */
export function reverseName(address: string): string {
  if (isIPv4(address)) return `${address.split(".").reverse().join(".")}.in-addr.arpa`;
  if (isIPv6(address)) {
    const full = new URL(`http://[${address}]`).hostname.slice(1, -1);
    const groups = full.split("::");
    const head = groups[0] ? (groups[0] as string).split(":") : [];
    const tail = groups[1] ? (groups[1] as string).split(":") : [];
    const all = groups.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail] : head;
    return `${all
      .map((g) => g.padStart(4, "0"))
      .join("")
      .split("")
      .reverse()
      .join(".")}.ip6.arpa`;
  }
  return address;
}

export const netDns = define({
  name: "net.dns",
  summary: "Look up DNS records for a name: A, AAAA, CNAME, MX, TXT, NS, SOA, CAA, SRV or PTR",
  agentText:
    "TXT records made of several strings are joined, as SPF and DKIM read them. NODATA (the name exists, the type does not) comes back as status NODATA with no answers.",
  searchWords: ["dig", "nslookup", "resolve", "dns lookup", "mx records"],
  safety: "read",
  reaches: "name",
  inputs: {
    name: {
      type: "string",
      description: "the name to look up (an address, for PTR)",
      required: true,
      positional: true,
    },
    type: { type: "string", description: "the record type", options: RECORD_TYPES, default: "A" },
    server: dnsServerInput,
  },
  result: { shape: "object" },
  examples: [{ command: "rta net dns example.com --type MX", note: "the mail exchangers of example.com" }],
  async run(args, ctx) {
    const type = args.type;
    let name = args.name.trim();
    if (type === "PTR" && isIP(name)) name = reverseName(name);
    if (!NAME.test(name))
      throw new RtaError(
        "net.badhost",
        `${JSON.stringify(args.name)} is not a name DNS can look up`,
        "send a host name such as example.com",
      );
    const result = await ctx.net.dns(args.server).query(name.replace(/\.$/, ""), type);
    if (result.rcode === "NXDOMAIN") {
      throw new RtaError(
        "net.dns.nxdomain",
        `${name} does not exist (NXDOMAIN)`,
        "check the spelling, or look up its parent domain",
      );
    }
    if (result.rcode !== "NOERROR") {
      throw new RtaError(
        "net.dns.failed",
        `the DNS server answered ${result.rcode} for ${name}`,
        "try again later, or ask the person running rta to check the DNS server",
      );
    }
    const answers = result.answers;
    return object({ name, type, status: answers.some((a) => a.type === type) ? "NOERROR" : "NODATA", answers });
  },
});
