/**
 * What a capability is handed to touch the world, as interfaces only. The
 * gate implements them (gate/paths, gate/net) and keeps every rule: what is
 * withheld, which links may be followed, which addresses an agent may reach.
 * A capability asks through these and never sees a grant, an origin or a
 * root list, so a capability that runs outside the binary (a plugin, an
 * upstream) needs nothing more than this file says.
 *
 * A path handle is opened by the gate before the run and closed after it.
 * Its methods work on what was opened, never on a path string: a capability
 * cannot name a place the gate did not look at, and never has to ask whether
 * something is withheld, a hard link, or a git secret: what is, is left out
 * or refused by the handle itself, with the gate's own code.
 */
import type { Stats } from "node:fs";
import type { Pacer } from "./pacer.ts";

export type PathIntent = "read" | "write";

export interface OpenOptions {
  /** for a write: make the missing directories above the last name, each inside the one before */
  makeParents?: boolean;
}

/** Bytes of an opened file, read where they are. */
export interface FileBytes {
  /** up to `length` bytes from `offset`; fewer at the end of the file */
  read(offset: number, length: number): Buffer;
}

/** A file a walk came to, opened for reading; its opener closes it. */
export interface OpenedFile extends FileBytes {
  close(): void;
}

/** The file a write handle names as it is now, opened again for reading; its size as opened. */
export interface ExistingFile extends OpenedFile {
  size: number;
}

/** A path opened for reading: the file or directory itself. */
export interface ReadHandle extends FileBytes {
  readonly intent: "read";
  /** the path as the caller sent it */
  readonly sent: string;
  /** where it is, relative to its root ("" for the root itself) */
  readonly rel: string;
  /** what was opened, as opened */
  readonly stat: Stats;
  /** the root it was opened under, as configured */
  readonly root: string;
  /** the same, as a directory to list or walk; undefined when it is not a directory */
  dir(): DirHandle | undefined;
  /**
   * The descriptor the gate opened, to hand a child process as it starts (a plugin's fd 3): open only while the
   * run lasts, never closed by the caller. What reads it reads what was opened, and nothing beside it.
   */
  descriptor(): number;
}

/** One entry of a directory, looked at in place (a link is not followed). */
export interface DirEntry {
  name: string;
  stat: Stats;
}

/** An entry a walk came to, in the directory it is in. */
export interface WalkEntry extends DirEntry {
  /** relative to the directory the walk started in */
  rel: string;
  depth: number;
  /**
   * The entry opened for reading, for a walk that reads what it finds (a
   * search): undefined for what the caller may not read (withheld, a hard
   * link where they are kept, a git secret) or what cannot be opened. Only
   * while the visitor runs; the caller closes it.
   */
  openFile(): OpenedFile | undefined;
}

/** An opened directory, with what the gate withholds already left out. */
export interface DirHandle {
  /** every name in it, sorted, not looked at: cheap to count past what is shown */
  names(): string[];
  /** the entry of that name, looked at; undefined when it is gone or withheld, or no one name in it (`..`, `a/b`) */
  entry(name: string): DirEntry | undefined;
  /**
   * Visits everything under it, depth first in name order, to `maxDepth` (1:
   * its own entries). Links are reported, never followed; withheld
   * directories are passed by in silence, and what cannot be read (its mode)
   * is passed by and counted in the summary; a directory it cannot list is
   * still visited. The visitor returns false to stop. The walk
   * gives way through `pacer` and throws `core.call.cancelled` once the call
   * is cancelled.
   */
  walk(
    maxDepth: number,
    pacer: Pacer,
    visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
  ): Promise<WalkSummary>;
}

/** What a walk passed by besides what the gate withholds, which is never counted: else a count would tell of it. */
export interface WalkSummary {
  /**
   * Entries the walk could not read (a directory it could not list, a name
   * it could not look at, a file `openFile` could not open), by their mode
   */
  skipped: number;
}

/**
 * A path to write: the directory the name lives in is open, and the name may
 * not exist yet. Every change lands on that name in that directory, and one
 * that would make a git dir where the gate guards them is taken back and refused.
 */
export interface WriteHandle {
  readonly intent: "write";
  readonly sent: string;
  readonly rel: string;
  /** the last name of the path */
  readonly name: string;
  /** what is there now, not followed if it is a link; null when nothing is */
  readonly existing: Stats | null;
  readonly root: string;
  /**
   * Replaces (or creates) the name with `data`, whole or not at all; a link at the name is replaced, never
   * written through. Refuses `core.path.symlink` when a directory is at the name now, or its directory is gone.
   */
  replace(data: Uint8Array, mode: number): void;
  /** The file at the name, opened again; refuses `core.path.symlink` when it is no longer the regular file the gate saw. */
  openExisting(): ExistingFile;
  /** Makes a directory at the name; refuses `core.path.symlink` when something is there now, or its directory is gone. */
  mkdir(): void;
  /**
   * Removes what is at the name: a file or link, or an empty directory; the OS error (ENOTEMPTY) passes
   * through, and `core.path.symlink` refuses what is no longer the kind of entry the gate saw.
   */
  remove(): void;
  /**
   * Removes the directory at the name and all in it, never following a link;
   * refuses whole, before removing anything, a tree that holds what the gate
   * keeps (`core.path.withheld`), one nested too deep or past what the kernel names (`core.path.invalid`),
   * or one holding a directory the server cannot list (`core.path.unreadable`).
   * Returns how many entries it removed.
   */
  removeTree(pacer: Pacer): Promise<number>;
  /** Moves what is at this name to `to`'s name; the OS error (EINVAL, ENOTDIR, EXDEV) passes through. */
  moveTo(to: WriteHandle): void;
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

export type { Offsite, OffsiteAnswer, OffsiteClient, OffsiteOptions } from "./offsiteAccess.ts";

/** What a system tool wrote and how it ended. */
export interface Spawned {
  code: number;
  stdout: string;
  stderr: string;
  /** the tool wrote more than rta keeps (gate/spawn.ts), and was killed: the output is its first bytes */
  cut?: boolean;
}

/**
 * Runs a system tool from an argument array (never a shell), with LC_ALL=C,
 * a fixed PATH, no stdin, the call's abort signal and a time limit. Resolves
 * undefined when the tool is not installed.
 */
export type Spawn = (argv: readonly string[]) => Promise<Spawned | undefined>;
