/**
 * audit.mail: a domain's mail posture from its DNS: MX; SPF, parsed and
 * followed with its ten-lookup limit counted; the DMARC policy; DKIM for the
 * selectors given; MTA-STS (the record and the policy over HTTPS); TLS-RPT.
 * The result is findings, each with a severity and a fix.
 */
import type { Lookup } from "../../core/access.ts";
import { define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { checkedHost } from "../../core/hostName.ts";
import { type FetchSettings, fetchFollowing } from "../http/follow.ts";
import { caFileInput, dnsServerInput } from "../net/operatorInputs.ts";
import { FINDING_COLUMNS, type Finding, writeFindings } from "./findings.ts";
import { spfFinding, txt } from "./spf.ts";

async function dmarcFinding(domain: string, dns: Lookup): Promise<Finding[]> {
  const record = (await txt(`_dmarc.${domain}`, dns).catch(() => [])).find((t) => /^v=DMARC1/i.test(t));
  if (!record)
    return [
      {
        check: "dmarc",
        severity: "high",
        finding: "no DMARC record",
        fix: `publish _dmarc.${domain} TXT "v=DMARC1; p=quarantine; rua=mailto:dmarc@${domain}"`,
      },
    ];
  const tags = Object.fromEntries(
    record
      .split(";")
      .map((p) =>
        p
          .trim()
          .split("=")
          .map((x) => x.trim()),
      )
      .filter((kv) => kv.length === 2),
  );
  const p = (tags.p ?? "").toLowerCase();
  const out: Finding[] = [
    p === "reject" || p === "quarantine"
      ? { check: "dmarc", severity: "ok", finding: `DMARC policy p=${p}`, fix: "" }
      : {
          check: "dmarc",
          severity: "medium",
          finding: `DMARC policy p=${p || "(none given)"}: failing mail is delivered`,
          fix: "move to p=quarantine, then p=reject",
        },
  ];
  if (!tags.rua)
    out.push({
      check: "dmarc reports",
      severity: "info",
      finding: "no rua: no aggregate reports are asked for",
      fix: "add rua=mailto:… to receive them",
    });
  return out;
}

async function dkimFindings(domain: string, selectors: string[], dns: Lookup): Promise<Finding[]> {
  if (selectors.length === 0)
    return [
      {
        check: "dkim",
        severity: "info",
        finding: "no selectors given, so DKIM was not checked",
        fix: "give the selectors your mail is signed with",
      },
    ];
  const out: Finding[] = [];
  for (const sel of selectors) {
    const record = (await txt(`${sel}._domainkey.${domain}`, dns).catch(() => [])).join("");
    const key = record.match(/(?:^|;)\s*p=([^;]*)/)?.[1]?.trim();
    if (!record)
      out.push({
        check: `dkim ${sel}`,
        severity: "medium",
        finding: `no DKIM key for selector ${sel}`,
        fix: `publish ${sel}._domainkey.${domain}, or sign with a selector that has one`,
      });
    else if (!key)
      out.push({ check: `dkim ${sel}`, severity: "info", finding: `selector ${sel} is revoked (empty p=)`, fix: "" });
    else out.push({ check: `dkim ${sel}`, severity: "ok", finding: `selector ${sel} has a key`, fix: "" });
  }
  return out;
}

async function mtaStsFinding(
  domain: string,
  port: number,
  settings: FetchSettings,
  ctx: Pick<RunContext, "net" | "budget">,
  dns: Lookup,
): Promise<Finding> {
  const record = (await txt(`_mta-sts.${domain}`, dns).catch(() => [])).find((t) => /^v=STSv1/i.test(t));
  if (!record)
    return {
      check: "mta-sts",
      severity: "low",
      finding: "no MTA-STS record: senders may deliver without TLS",
      fix: `publish _mta-sts.${domain} and a policy at https://mta-sts.${domain}/.well-known/mta-sts.txt`,
    };
  const policyHost = `mta-sts.${domain}`;
  try {
    const url = new URL(`https://${policyHost}${port === 443 ? "" : `:${port}`}/.well-known/mta-sts.txt`);
    const f = await fetchFollowing("GET", url, { ...settings, timeout: 8 }, ctx);
    const mode = f.response.body.toString("utf8").match(/^mode:\s*(\w+)/m)?.[1];
    if (f.response.status !== 200 || !mode)
      return {
        check: "mta-sts",
        severity: "medium",
        finding: `the MTA-STS policy does not read (HTTP ${f.response.status})`,
        fix: "serve the policy file with version, mode, mx and max_age",
      };
    if (mode === "enforce") return { check: "mta-sts", severity: "ok", finding: "MTA-STS mode enforce", fix: "" };
    return {
      check: "mta-sts",
      severity: mode === "testing" ? "low" : "medium",
      finding: `MTA-STS mode ${mode}`,
      fix: "move to mode: enforce once TLS reports are clean",
    };
  } catch (err) {
    if (err instanceof RtaError && err.code.startsWith("core.")) throw err;
    return {
      check: "mta-sts",
      severity: "medium",
      finding: `the MTA-STS policy cannot be fetched: ${(err as Error).message}`,
      fix: `serve https://${policyHost}/.well-known/mta-sts.txt with a trusted certificate`,
    };
  }
}

export const auditMail = define({
  name: "audit.mail",
  summary: "Audit a domain's mail setup: MX, SPF (with its lookup count), DMARC, DKIM, MTA-STS and TLS-RPT",
  searchWords: ["email security", "spf check", "dmarc check", "dkim", "deliverability"],
  safety: "read",
  reaches: "domain",
  inputs: {
    domain: { type: "string", description: "the mail domain", required: true, positional: true },
    selectors: { type: "string", description: "DKIM selectors to check, separated by commas", default: "" },
    https_port: {
      type: "integer",
      description: "the port the MTA-STS policy is served on",
      range: [1, 65535],
      default: 443,
    },
    server: dnsServerInput,
    ca_file: caFileInput,
  },
  result: { shape: "table", columns: FINDING_COLUMNS },
  examples: [
    { command: "rta audit mail example.com --selectors google,s1", note: "the mail findings for example.com" },
  ],
  async run(args, ctx) {
    const domain = checkedHost(args.domain);
    const dns = ctx.net.dns(args.server);
    const mx = await dns.query(domain, "MX");
    if (mx.rcode === "NXDOMAIN")
      throw new RtaError("net.dns.nxdomain", `${domain} does not exist (NXDOMAIN)`, "check the domain");
    const exchangers = mx.answers.filter((a) => a.type === "MX");
    const findings: Finding[] = [
      exchangers.length === 0
        ? { check: "mx", severity: "high", finding: "no MX record", fix: `publish MX records for ${domain}` }
        : exchangers.length === 1 && / \.?$/.test(exchangers[0]?.data ?? "")
          ? { check: "mx", severity: "info", finding: "a null MX: the domain takes no mail", fix: "" }
          : { check: "mx", severity: "ok", finding: exchangers.map((a) => a.data).join(", "), fix: "" },
      await spfFinding(domain, dns),
      ...(await dmarcFinding(domain, dns)),
      ...(await dkimFindings(
        domain,
        args.selectors
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
        dns,
      )),
      await mtaStsFinding(domain, args.https_port, args, ctx, dns),
    ];
    const rpt = (await txt(`_smtp._tls.${domain}`, dns).catch(() => [])).find((t) => /^v=TLSRPTv1/i.test(t));
    findings.push(
      rpt
        ? { check: "tls-rpt", severity: "ok", finding: "TLS-RPT reports are asked for", fix: "" }
        : {
            check: "tls-rpt",
            severity: "info",
            finding: "no TLS-RPT record",
            fix: `publish _smtp._tls.${domain} TXT "v=TLSRPTv1; rua=mailto:tls@${domain}"`,
          },
    );
    return writeFindings(ctx.rows(), findings);
  },
});
