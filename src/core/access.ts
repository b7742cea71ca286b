/**
 * What a capability is handed to touch the world, as interfaces only. The
 * gate implements them (gate/paths, gate/net) and keeps every rule: what is
 * withheld, which links may be followed, which addresses an agent may reach.
 * A capability asks through these and never sees a grant, an origin or a
 * root list, so a capability that runs outside the binary (a plugin, an
 * upstream) needs nothing more than this file says.
 */
import type { Stats } from "node:fs";

export type PathIntent = "read" | "write";

export interface OpenOptions {
  /** for a write: make the missing directories above the last name, each inside the one before */
  makeParents?: boolean;
}

/** A path opened for reading: a descriptor on the file or directory itself. */
export interface ReadHandle {
  intent: "read";
  /** the path as the caller sent it */
  sent: string;
  /** where it is, relative to its root ("" for the root itself) */
  rel: string;
  fd: number;
  stat: Stats;
  /** the root it was opened under, as configured */
  root: string;
}

/** A path to write: its parent directory opened, and the name in it, which may not exist yet. */
export interface WriteHandle {
  intent: "write";
  sent: string;
  rel: string;
  /** a descriptor (O_PATH) on the directory the name lives in */
  parentFd: number;
  name: string;
  /** what is there now, not followed if it is a link; null when nothing is */
  existing: Stats | null;
  root: string;
}

export type GatedPath = ReadHandle | WriteHandle;

// The network and child processes. The gate implements these (gate/net, gate/spawn.ts) for one call at a time,
// from who calls and the grant it spent: a capability asks and is refused, and never sees why it may.
// (Their node types are named here, not imported at the top, so this block stands apart from the one above.)
type Socket = import("node:net").Socket;
type TLSSocket = import("node:tls").TLSSocket;

/** What kind of place an IP address is: every kind but public is one an agent reaches only through a grant naming it. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved";

/** The DNS record types rta looks up. */
export type RecordType = "A" | "AAAA" | "CNAME" | "MX" | "TXT" | "NS" | "SOA" | "CAA" | "SRV" | "PTR";

export interface Answer {
  name: string;
  type: string;
  ttl: number;
  data: string;
}

export interface DnsResult {
  /** NOERROR, NXDOMAIN, SERVFAIL, REFUSED, ... */
  rcode: string;
  answers: Answer[];
}

/** Lookups through the DNS servers one call asks, as they are: no address rule applies to an answer read. */
export interface Lookup {
  query(name: string, type: RecordType): Promise<DnsResult>;
}

/** A host resolved once and vetted for the call: every connection to it goes to this address (pinned). */
export interface Destination {
  /** the name the call used, spelled as a grant sees it (or the address, when it gave one) */
  readonly host: string;
  readonly address: string;
  readonly kind: AddressClass;
}

/** The timeouts and body limit of one HTTP exchange. */
export interface HttpLimits {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
  /** bytes of body kept; past it the body is cut and the connection dropped */
  maxBody: number;
}

/** One HTTP response, its body kept up to the limit. */
export interface Exchange {
  status: number;
  headers: Record<string, string>;
  /** each Set-Cookie header on its own: joined, their Expires dates would break them apart */
  cookies: string[];
  body: Buffer;
  /** bytes the server said or sent beyond what was kept, if known */
  cutBytes: number | "unknown";
  cut: boolean;
  timing: { connect_ms: number; headers_ms: number; total_ms: number };
  tls?: { protocol: string | null; authorized: boolean; error?: string };
}

/**
 * What a capability may ask of the network. `server` is always the
 * operator's DNS server setting (host:port, comma-separated), never an
 * agent's: left out, the system's servers are asked. A connection goes only
 * to a Destination this value handed out for the same call.
 */
export interface NetAccess {
  /** lookups through `server`'s DNS servers; refuses core.config.invalid a server that is no address and port */
  dns(server?: string): Lookup;
  /**
   * Resolves `host` once (A, then AAAA) to the address the call connects to.
   * Refuses net.badhost what is no host name or address, net.dns.nxdomain and
   * net.unreachable a name with no address, and net.destination.private an
   * address the call may not reach (for an agent: loopback, private,
   * link-local, metadata and the like, unless its grant names the host or address).
   */
  resolve(host: string, server?: string): Promise<Destination>;
  /** whether a redirect from one host to another may be followed: for an agent, only within what its grant names */
  mayFollow(from: string, to: string): boolean;
  /** a TCP connection to a vetted destination; refuses (throws) one this call was not handed */
  dial(to: Destination, port: number): Socket;
  /**
   * A TLS connection to a vetted destination, its host as the server name.
   * The certificate is not enforced: the caller reads `authorized` and the
   * chain. `ca` is the operator's extra CAs (PEM), trusted beside the system's.
   */
  dialTls(to: Destination, port: number, ca?: string): Promise<TLSSocket>;
  /**
   * One HTTP(S) request for `url` sent to the vetted destination's address,
   * the name only as the Host header and the TLS server name, held to
   * `limits` and the call's abort signal. Refuses net.timeout, net.unreachable,
   * net.tls and core.call.cancelled.
   */
  request(method: "GET" | "HEAD", url: URL, to: Destination, limits: HttpLimits, ca?: string): Promise<Exchange>;
}

/** What a system tool wrote and how it ended. */
export interface Spawned {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a system tool from an argument array (never a shell), with LC_ALL=C,
 * a fixed PATH, no stdin, the call's abort signal and a time limit. Resolves
 * undefined when the tool is not installed.
 */
export type Spawn = (argv: readonly string[]) => Promise<Spawned | undefined>;
