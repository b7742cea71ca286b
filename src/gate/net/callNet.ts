/**
 * The network as one call is handed it (core/access.ts NetAccess). Made by
 * stage 11 from who calls and the grant it spent; every rule it applies is
 * in destination.ts. A connection goes only to a Destination this value
 * resolved for the same call, so what a capability dials is always an
 * address the rules have seen: a destination it made up is refused.
 */
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Destination, Exchange, HttpLimits, Lookup, NetAccess } from "../../core/access.ts";
import { connect as connectTcp, isIP } from "../../core/lazyNet.ts";
import { mayFollow, type Reach, resolveDestination } from "./destination.ts";
import { exchange } from "./httpClient.ts";
import { dnsServers, query } from "./resolver.ts";

/** The network for one call, held to `reach`; its requests end with `signal`. */
export class CallNet implements NetAccess {
  // Private in the language, not only in the types: a capability holding this value cannot read who calls.
  readonly #reach: Reach;
  readonly #signal: AbortSignal;
  /** the destinations this call resolved: made on the first, as most calls reach nowhere */
  #vetted: WeakSet<Destination> | undefined;

  constructor(reach: Reach, signal: AbortSignal) {
    this.#reach = reach;
    this.#signal = signal;
  }

  dns(server?: string): Lookup {
    const servers = dnsServers(server);
    return { query: (name, type) => query(name, type, servers) };
  }

  async resolve(host: string, server?: string): Promise<Destination> {
    // Frozen, so a destination the rules saw cannot be pointed elsewhere before it is dialled.
    const destination = Object.freeze(await resolveDestination(host, server, this.#reach));
    this.#vetted ??= new WeakSet();
    this.#vetted.add(destination);
    return destination;
  }

  mayFollow(from: string, to: string): boolean {
    return mayFollow(this.#reach, from, to);
  }

  dial(to: Destination, port: number): Socket {
    this.#check(to);
    return connectTcp({ host: to.address, port });
  }

  async dialTls(to: Destination, port: number, ca?: string): Promise<TLSSocket> {
    this.#check(to);
    // Loaded for the handshake, not at start-up.
    const { connect, rootCertificates } = await import("node:tls");
    return connect({
      host: to.address,
      port,
      ...(isIP(to.host) === 0 ? { servername: to.host } : {}),
      rejectUnauthorized: false,
      ...(ca ? { ca: [...rootCertificates, ca] } : {}),
    });
  }

  request(method: "GET" | "HEAD", url: URL, to: Destination, limits: HttpLimits, ca?: string): Promise<Exchange> {
    this.#check(to);
    return exchange(method, { url, address: to.address, ...(ca ? { ca } : {}) }, limits, this.#signal);
  }

  /** A destination this call did not resolve is a fault in the capability, never a place to go. */
  #check(to: Destination): void {
    if (!this.#vetted?.has(to))
      throw new Error("a connection was asked for to a destination this call did not resolve");
  }
}
