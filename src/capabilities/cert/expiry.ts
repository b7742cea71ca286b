/**
 * cert.expiry: a TLS server's certificate chain: subject, issuer, names,
 * validity and days left for each, whether the leaf matches the name asked
 * for, and whether the chain is trusted. The handshake goes to the address
 * the name was pinned to, with the name as the server name.
 */
import type { DetailedPeerCertificate, PeerCertificate } from "node:tls";
import { define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { caFileInput, dnsServerInput, operatorCa } from "../net/operatorInputs.ts";

const HANDSHAKE_TIMEOUT_MS = 8000;
const DAY_MS = 86_400_000;

export interface ChainLink {
  subject: string;
  issuer: string;
  names: string[];
  not_before: string;
  not_after: string;
  days_left: number;
}

export interface CertReport {
  host: string;
  port: number;
  address: string;
  trusted: boolean;
  trust_error?: string;
  matches_name: boolean;
  protocol: string | null;
  days_left: number;
  chain: ChainLink[];
}

function cn(x: Record<string, unknown> | undefined): string {
  if (!x) return "";
  const v = x.CN ?? x.O;
  return Array.isArray(v) ? v.join(", ") : String(v ?? "");
}

/**
 * The TLS handshake with `host:port` at its pinned address, and what it says
 * of the certificates. Refuses what ctx.net.resolve refuses, core.config.invalid
 * an unreadable CA file, net.timeout, net.unreachable (refused) and net.tls
 * (no handshake).
 */
export async function inspectCertificate(
  rawHost: string,
  port: number,
  ctx: Pick<RunContext, "net">,
  server: string | undefined,
  caFile: string | undefined,
): Promise<CertReport> {
  const dest = await ctx.net.resolve(rawHost, server);
  const ca = operatorCa(caFile);
  const host = dest.host;
  // Loaded for the name check, not at start-up.
  const { checkServerIdentity } = await import("node:tls");
  const socket = await ctx.net.dialTls(dest, port, ca);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new RtaError(
          "net.timeout",
          `${host}:${port} did not finish a TLS handshake within ${HANDSHAKE_TIMEOUT_MS} ms`,
          "check the host and port",
        ),
      );
    }, HANDSHAKE_TIMEOUT_MS);
    socket.on("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        err.code === "ECONNREFUSED"
          ? new RtaError(
              "net.unreachable",
              `${host}:${port} refused the connection`,
              "check the port: HTTPS is usually 443",
            )
          : new RtaError(
              "net.tls",
              `no TLS handshake with ${host}:${port}: ${err.message}`,
              "check that the port speaks TLS",
            ),
      );
    });
    socket.on("secureConnect", () => {
      clearTimeout(timer);
      const leaf = socket.getPeerCertificate(true) as DetailedPeerCertificate;
      const now = Date.now();
      const chain: ChainLink[] = [];
      const seen = new Set<string>();
      let c: DetailedPeerCertificate | undefined = leaf;
      while (c && Object.keys(c).length > 0 && !seen.has(c.fingerprint256)) {
        seen.add(c.fingerprint256);
        chain.push({
          subject: cn(c.subject as unknown as Record<string, unknown>),
          issuer: cn(c.issuer as unknown as Record<string, unknown>),
          names: (c.subjectaltname ?? "")
            .split(", ")
            .filter(Boolean)
            .map((n) => n.replace(/^(DNS|IP Address):/, "")),
          not_before: new Date(c.valid_from).toISOString(),
          not_after: new Date(c.valid_to).toISOString(),
          days_left: Math.floor((Date.parse(c.valid_to) - now) / DAY_MS),
        });
        c = c.issuerCertificate;
      }
      // The chain's trust and the name's match are told apart: a name mismatch alone leaves the chain trusted.
      const error = socket.authorizationError ? String(socket.authorizationError) : undefined;
      const trusted = socket.authorized || error === "ERR_TLS_CERT_ALTNAME_INVALID";
      const report: CertReport = {
        host,
        port,
        address: dest.address,
        trusted,
        matches_name: checkServerIdentity(host, leaf as PeerCertificate) === undefined,
        protocol: socket.getProtocol(),
        days_left: chain[0]?.days_left ?? 0,
        chain,
      };
      if (!trusted && error) report.trust_error = error;
      socket.end();
      resolve(report);
    });
  });
}

export const certExpiry = define({
  name: "cert.expiry",
  summary: "Check a TLS server's certificate chain: names, validity, days left, name match and trust",
  searchWords: ["ssl", "tls", "certificate", "x509", "expires"],
  safety: "read",
  reaches: "host",
  inputs: {
    host: { type: "string", description: "the host name (or address)", required: true, positional: true },
    port: { type: "integer", description: "the TLS port", range: [1, 65535], default: 443 },
    server: dnsServerInput,
    ca_file: caFileInput,
  },
  result: { shape: "object" },
  examples: [{ command: "rta cert expiry example.com", note: "when example.com's certificate runs out" }],
  async run(args, ctx) {
    return object({ ...(await inspectCertificate(args.host, args.port, ctx, args.server, args.ca_file)) });
  },
});
