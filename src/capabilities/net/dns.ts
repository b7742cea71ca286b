/**
 * net.dns: resolves a name, through the operator's DNS server (a connection,
 * config) or the system's. A read that names a destination: an agent needs a
 * grant, which can name the one host. NXDOMAIN is a refusal of its own;
 * NODATA is an answer with no records, said as what it is.
 */
import { isIP } from "node:net";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { dnsServerInput } from "./operatorInputs.ts";
import {
  type DnsServer,
  parseServer,
  query,
  RECORD_TYPES,
  type RecordType,
  reverseName,
  systemServers,
} from "./resolver.ts";

/** A host name as DNS takes it: labels of letters, digits, hyphens and underscores, or an address for PTR. */
const NAME =
  /^(?=.{1,253}\.?$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$/;

/** The servers a call asks: the operator's, else the system's. */
export function dnsServers(server: unknown): DnsServer[] {
  return typeof server === "string" && server !== ""
    ? server.split(",").map((s) => parseServer(s.trim()))
    : systemServers();
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
  async run(args) {
    const type = args.type as RecordType;
    let name = String(args.name).trim();
    if (type === "PTR" && isIP(name)) name = reverseName(name);
    if (!NAME.test(name))
      throw new RtaError(
        "net.badhost",
        `${JSON.stringify(String(args.name))} is not a name DNS can look up`,
        "send a host name such as example.com",
      );
    const result = await query(name.replace(/\.$/, ""), type, dnsServers(args.server));
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
