/**
 * Where a destination read goes. A host is resolved once, and the call
 * connects to that address for its whole life (pinned), so a DNS answer that
 * changes while the call runs cannot move it. A loopback, private,
 * link-local or cloud-metadata address is refused to an agent unless its
 * grant names that exact host or address.
 */
import { isIP } from "node:net";
import type { RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { hostOf, isHostOrAddress } from "../../gate/argsDigest.ts";
import { type AddressClass, classify, isSensitive } from "./addressClass.ts";
import { dnsServers } from "./dns.ts";
import { query } from "./resolver.ts";

export interface Destination {
  /** the name the call used (or the address, when it gave one) */
  host: string;
  address: string;
  kind: AddressClass;
}

/** A host name or address as a grant and a TLS handshake see it: the URL parser's spelling (see hostOf). */
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

/** The TLS server name for a host: none for an address, which SNI does not carry. */
export function serverName(host: string): { servername?: string } {
  return isIP(host) === 0 ? { servername: host } : {};
}

/** Resolves `host` once (A, then AAAA) and holds the address to the grant's rules. */
export async function resolveDestination(
  rawHost: string,
  ctx: RunContext,
  server: unknown,
  capName: string,
): Promise<Destination> {
  const host = checkedHost(rawHost);
  let address = host;
  if (isIP(host) === 0) {
    const servers = dnsServers(server);
    const v4 = await query(host, "A", servers);
    const found =
      v4.answers.find((a) => a.type === "A") ??
      (await query(host, "AAAA", servers)).answers.find((a) => a.type === "AAAA");
    if (!found) {
      const nx = v4.rcode === "NXDOMAIN";
      throw new RtaError(
        nx ? "net.dns.nxdomain" : "net.unreachable",
        nx ? `${host} does not exist (NXDOMAIN)` : `${host} has no address`,
        "check the host name",
      );
    }
    address = found.data;
  }
  const kind = classify(address);
  if (ctx.origin.kind === "agent" && isSensitive(kind)) {
    const named = ctx.grant?.host;
    if (named !== host && named !== address) {
      throw new RtaError(
        "net.destination.private",
        `${host} is ${host === address ? "" : `at ${address}, `}${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address, which only a grant naming it may reach`,
        `a person can allow it by running \`rta grant allow ${capName} --agent ${ctx.origin.name} --ttl 5m --host ${host}\``,
      );
    }
  }
  return { host, address, kind };
}
