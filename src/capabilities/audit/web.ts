/**
 * audit.web: a web server's security posture from outside: the redirect from
 * plain HTTP, the TLS version and certificate, HSTS, CSP,
 * X-Content-Type-Options, framing, cookie flags and version disclosure. The
 * result is findings, each with a severity and a fix.
 */
import { define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { normalHost } from "../../core/hostName.ts";
import { type CertReport, inspectCertificate } from "../cert/expiry.ts";
import { fetchFollowing } from "../http/follow.ts";
import { caFileInput, dnsServerInput } from "../net/operatorInputs.ts";
import { FINDING_COLUMNS, type Finding, type Severity, writeFindings } from "./findings.ts";

/** Half a year: the HSTS max-age browsers' preload lists ask for at least. */
const HSTS_MIN_SECONDS = 15_552_000;
const TIMEOUTS = { connectMs: 5000, headersMs: 8000, bodyMs: 8000, maxBody: 64 * 1024 };

/** What the response headers and cookies of a page say of its security; refuses nothing. */
function headerFindings(headers: Record<string, string>, cookies: string[]): Finding[] {
  const f: Finding[] = [];
  const hsts = headers["strict-transport-security"];
  const maxAge = Number(hsts?.match(/max-age\s*=\s*"?(\d+)/i)?.[1] ?? -1);
  if (!hsts)
    f.push({
      check: "hsts",
      severity: "medium",
      finding: "no Strict-Transport-Security header",
      fix: `send Strict-Transport-Security: max-age=${HSTS_MIN_SECONDS}; includeSubDomains`,
    });
  else if (maxAge < HSTS_MIN_SECONDS)
    f.push({
      check: "hsts",
      severity: "low",
      finding: `HSTS max-age is ${maxAge} s, under half a year`,
      fix: `raise max-age to at least ${HSTS_MIN_SECONDS}`,
    });
  else f.push({ check: "hsts", severity: "ok", finding: `HSTS max-age ${maxAge} s`, fix: "" });
  const csp = headers["content-security-policy"];
  f.push(
    csp
      ? { check: "csp", severity: "ok", finding: "a Content-Security-Policy is sent", fix: "" }
      : {
          check: "csp",
          severity: "low",
          finding: "no Content-Security-Policy header",
          fix: "send a Content-Security-Policy that lists where scripts may come from",
        },
  );
  f.push(
    (headers["x-content-type-options"] ?? "").toLowerCase() === "nosniff"
      ? { check: "x-content-type-options", severity: "ok", finding: "nosniff", fix: "" }
      : {
          check: "x-content-type-options",
          severity: "low",
          finding: "X-Content-Type-Options is not nosniff",
          fix: "send X-Content-Type-Options: nosniff",
        },
  );
  const xfo = (headers["x-frame-options"] ?? "").toUpperCase();
  const ancestors = /frame-ancestors/i.test(csp ?? "");
  f.push(
    xfo === "DENY" || xfo === "SAMEORIGIN" || ancestors
      ? {
          check: "framing",
          severity: "ok",
          finding: ancestors ? "CSP frame-ancestors is set" : `X-Frame-Options ${xfo}`,
          fix: "",
        }
      : {
          check: "framing",
          severity: "low",
          finding: "the page may be framed by any site",
          fix: "send X-Frame-Options: DENY, or CSP frame-ancestors 'none'",
        },
  );
  for (const cookie of cookies) {
    const name = cookie.split("=")[0]?.trim() ?? "?";
    const attrs = cookie
      .toLowerCase()
      .split(";")
      .map((a) => a.trim());
    const missing = [
      !attrs.includes("secure") && "Secure",
      !attrs.includes("httponly") && "HttpOnly",
      !attrs.some((a) => a.startsWith("samesite")) && "SameSite",
    ].filter(Boolean);
    f.push(
      missing.length === 0
        ? { check: "cookie", severity: "ok", finding: `cookie ${name} is Secure, HttpOnly and SameSite`, fix: "" }
        : {
            check: "cookie",
            severity: missing.includes("Secure") ? "medium" : "low",
            finding: `cookie ${name} lacks ${missing.join(", ")}`,
            fix: `set ${missing.join(", ")} on cookie ${name}`,
          },
    );
  }
  const disclosed = [headers.server, headers["x-powered-by"]].filter(
    (v): v is string => v !== undefined && /\d/.test(v),
  );
  f.push(
    disclosed.length > 0
      ? {
          check: "version disclosure",
          severity: "low",
          finding: `the server names its version: ${disclosed.join(", ")}`,
          fix: "send Server without a version (nginx: server_tokens off; Apache: ServerTokens Prod)",
        }
      : { check: "version disclosure", severity: "ok", finding: "no version in Server or X-Powered-By", fix: "" },
  );
  return f;
}

async function redirectFinding(
  host: string,
  port: number,
  ctx: Pick<RunContext, "net">,
  server: string | undefined,
): Promise<Finding> {
  const dest = await ctx.net.resolve(host, server);
  const url = new URL(`http://${host}${port === 80 ? "" : `:${port}`}/`);
  try {
    const r = await ctx.net.request("GET", url, dest, TIMEOUTS);
    const location = r.headers.location ?? "";
    if (r.status >= 300 && r.status < 400 && location.startsWith("https://"))
      return {
        check: "https redirect",
        severity: "ok",
        finding: `plain HTTP answers ${r.status} to ${location}`,
        fix: "",
      };
    return {
      check: "https redirect",
      severity: "medium",
      finding: `plain HTTP answers ${r.status} without sending to HTTPS`,
      fix: "redirect every plain HTTP request to https:// with 301 or 308",
    };
  } catch (err) {
    if (err instanceof RtaError && (err.code === "net.unreachable" || err.code === "net.timeout")) {
      return {
        check: "https redirect",
        severity: "info",
        finding: `nothing answers plain HTTP on port ${port}`,
        fix: "",
      };
    }
    throw err;
  }
}

/** What the certificate says: the first thing wrong with it, or that it is fine; refuses nothing. */
function certificateFinding(cert: CertReport, host: string): Finding {
  const found = (severity: Severity, finding: string, fix: string): Finding => ({
    check: "certificate",
    severity,
    finding,
    fix,
  });
  if (!cert.trusted)
    return found(
      "high",
      `the chain is not trusted (${cert.trust_error ?? "unknown"})`,
      "serve a certificate from a trusted CA, with its intermediates",
    );
  if (!cert.matches_name) return found("high", `the certificate does not name ${host}`, `add ${host} to its names`);
  if (cert.days_left < 0) return found("high", `expired ${-cert.days_left} days ago`, "renew it");
  if (cert.days_left < 14)
    return found("medium", `expires in ${cert.days_left} days`, "renew it now, and automate renewal");
  if (cert.days_left < 30) return found("low", `expires in ${cert.days_left} days`, "renew it soon");
  return found("ok", `trusted, names ${host}, ${cert.days_left} days left`, "");
}

export const auditWeb = define({
  name: "audit.web",
  summary:
    "Audit a web server: HTTPS redirect, TLS version, certificate, HSTS, CSP, framing, cookie flags, version disclosure",
  searchWords: ["security headers", "website check", "ssl labs", "hsts check"],
  safety: "read",
  reaches: "host",
  inputs: {
    host: { type: "string", description: "the web server's host name", required: true, positional: true },
    https_port: { type: "integer", description: "the HTTPS port", range: [1, 65535], default: 443 },
    http_port: { type: "integer", description: "the plain HTTP port", range: [1, 65535], default: 80 },
    server: dnsServerInput,
    ca_file: caFileInput,
  },
  result: { shape: "table", columns: FINDING_COLUMNS },
  examples: [{ command: "rta audit web example.com", note: "the findings for example.com" }],
  async run(args, ctx) {
    const host = normalHost(args.host);
    const httpsPort = args.https_port;
    const findings: Finding[] = [await redirectFinding(host, args.http_port, ctx, args.server)];
    const cert = await inspectCertificate(host, httpsPort, ctx, args.server, args.ca_file);
    findings.push(
      cert.protocol === "TLSv1.3" || cert.protocol === "TLSv1.2"
        ? { check: "tls version", severity: "ok", finding: `${cert.protocol}`, fix: "" }
        : {
            check: "tls version",
            severity: "high",
            finding: `the server settles on ${cert.protocol ?? "an unknown version"}`,
            fix: "allow only TLS 1.2 and 1.3",
          },
    );
    findings.push(certificateFinding(cert, host));
    const page = await fetchFollowing(
      "GET",
      new URL(`https://${host}${httpsPort === 443 ? "" : `:${httpsPort}`}/`),
      { ...args, timeout: 8 },
      ctx,
    );
    findings.push(...headerFindings(page.response.headers, page.response.cookies));
    return writeFindings(ctx.rows(), findings);
  },
});
