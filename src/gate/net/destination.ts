/**
 * Where a destination read may go. A host is resolved once, and the call
 * connects to that address for its whole life (pinned), so a DNS answer that
 * changes while the call runs cannot move it. A loopback, private,
 * link-local or cloud-metadata address is refused to an agent unless its
 * grant names that exact host or address, and a redirect to another host is
 * followed for an agent only when its grant names no host or that one. A
 * person is held to neither. These are the only places the network rules
 * read who calls and which grant paid.
 */
import type { AddressClass, Destination } from "../../core/access.ts";
import { RtaError } from "../../core/errors.ts";
import { checkedHost } from "../../core/hostName.ts";
import { isIP } from "../../core/lazyNet.ts";
import { withArticle } from "../../core/words.ts";
import { classify, isSensitive } from "./addressClass.ts";
import { dnsServers, query } from "./resolver.ts";

/** Who a call's destinations are held for: the agent calling (none for a person), and the host its grant names. */
export interface Reach {
  /** the agent's name; undefined for a person, who may reach anywhere */
  agent: string | undefined;
  /** the host the spent grant names: null for a grant for any host, undefined when no grant was spent */
  grantHost: string | null | undefined;
  /** the capability, named in the hint that says which grant would allow it */
  capability: string;
}

/**
 * Refuses net.destination.private an agent's call to a loopback, private,
 * link-local, metadata or other non-public address that its grant does not
 * name, by host or by address; allows everything else.
 */
export function checkReach(reach: Reach, host: string, address: string, kind: AddressClass): void {
  if (reach.agent === undefined || !isSensitive(kind)) return;
  const named = reach.grantHost;
  if (named === host || named === address) return;
  throw new RtaError(
    "net.destination.private",
    `${host} is ${host === address ? "" : `at ${address}, `}${withArticle(kind)} address, which only a grant naming it may reach`,
    `a person can allow it by running \`rta grant allow ${reach.capability} --agent ${reach.agent} --ttl 5m --host ${host}\``,
  );
}

/** Whether a redirect from host `from` to host `to` (both as hostName spells them) may be followed; refuses nothing itself. */
export function mayFollow(reach: Reach, from: string, to: string): boolean {
  if (reach.agent === undefined || from === to) return true;
  return reach.grantHost == null || reach.grantHost === to;
}

/**
 * Resolves `rawHost` once (A, then AAAA, through `server`'s DNS servers)
 * and holds the address to checkReach. Refuses net.badhost what is no host,
 * net.dns.nxdomain a name that does not exist, net.unreachable one with no
 * address, and what checkReach refuses.
 */
export async function resolveDestination(rawHost: string, server: unknown, reach: Reach): Promise<Destination> {
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
  checkReach(reach, host, address, kind);
  return { host, address, kind };
}
