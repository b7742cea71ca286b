/**
 * SPF, as audit.mail judges it: the record parsed and followed through its
 * includes and redirects with RFC 7208's ten-lookup limit counted, as a
 * receiver would count it, and said as one finding with its fix.
 */
import type { Lookup } from "../../core/access.ts";
import type { Finding } from "./findings.ts";

/** RFC 7208: an SPF check may cause at most ten DNS lookups. */
export const SPF_LOOKUP_LIMIT = 10;
/** How deep includes are followed before the count stops: past ten it has failed anyway. */
const SPF_MAX_DEPTH = 10;

/** The TXT strings published at `name`, each record joined; refuses what the lookup refuses. */
export async function txt(name: string, dns: Lookup): Promise<string[]> {
  const r = await dns.query(name, "TXT");
  return r.answers.filter((a) => a.type === "TXT").map((a) => a.data);
}

export interface SpfCount {
  lookups: number;
  all?: string;
  errors: string[];
}

/** Counts the DNS lookups an SPF record causes, following include: and redirect=, as a receiver would; refuses what a lookup refuses. */
async function countSpf(domain: string, dns: Lookup, depth = 0, seen = new Set<string>()): Promise<SpfCount> {
  const count: SpfCount = { lookups: 0, errors: [] };
  if (seen.has(domain)) return { ...count, errors: [`${domain} includes itself`] };
  seen.add(domain);
  const records = (await txt(domain, dns)).filter((t) => /^v=spf1(\s|$)/i.test(t));
  if (records.length !== 1)
    return {
      ...count,
      errors: [records.length === 0 ? `${domain} has no SPF record` : `${domain} has ${records.length} SPF records`],
    };
  for (const term of (records[0] as string).split(/\s+/).slice(1)) {
    const m = term.match(/^([+?~-]?)(include|a|mx|ptr|exists|redirect|all)(?:[:=](.*))?$/i);
    if (!m) continue;
    const mech = (m[2] as string).toLowerCase();
    if (mech === "all") {
      if (depth === 0) count.all = `${m[1] || "+"}all`;
      continue;
    }
    count.lookups++;
    if ((mech === "include" || mech === "redirect") && m[3] && depth < SPF_MAX_DEPTH) {
      const inner = await countSpf(m[3], dns, depth + 1, seen);
      count.lookups += inner.lookups;
      count.errors.push(...inner.errors);
      if (mech === "redirect" && depth === 0 && inner.all) count.all = inner.all;
    }
  }
  return count;
}

/** What the domain's SPF record says, as one finding; refuses what a lookup refuses. */
export async function spfFinding(domain: string, dns: Lookup): Promise<Finding> {
  const records = (await txt(domain, dns)).filter((t) => /^v=spf1(\s|$)/i.test(t));
  if (records.length === 0)
    return {
      check: "spf",
      severity: "high",
      finding: "no SPF record",
      fix: `publish a TXT record at ${domain}: v=spf1 mx -all`,
    };
  if (records.length > 1)
    return {
      check: "spf",
      severity: "high",
      finding: `${records.length} SPF records: receivers fail them all (permerror)`,
      fix: "merge them into one v=spf1 record",
    };
  const c = await countSpf(domain, dns);
  if (c.lookups > SPF_LOOKUP_LIMIT) {
    return {
      check: "spf",
      severity: "high",
      finding: `SPF needs ${c.lookups} DNS lookups, past the limit of ${SPF_LOOKUP_LIMIT}: receivers fail it (permerror)`,
      fix: "flatten includes into ip4:/ip6: ranges, or drop senders you no longer use",
    };
  }
  if (c.errors.length > 0)
    return {
      check: "spf",
      severity: "medium",
      finding: `SPF includes what does not resolve: ${c.errors.join("; ")}`,
      fix: "fix or drop the broken include",
    };
  if (c.all === "-all")
    return {
      check: "spf",
      severity: "ok",
      finding: `SPF ends in -all, ${c.lookups} lookup${c.lookups === 1 ? "" : "s"} of ${SPF_LOOKUP_LIMIT}`,
      fix: "",
    };
  if (c.all === "~all")
    return {
      check: "spf",
      severity: "low",
      finding: `SPF ends in ~all (soft fail), ${c.lookups} lookups`,
      fix: "end it in -all once every sender is listed",
    };
  return {
    check: "spf",
    severity: c.all === "+all" ? "high" : "medium",
    finding: c.all ? `SPF ends in ${c.all}, which lets anyone send` : "SPF has no all term",
    fix: "end it in -all",
  };
}
