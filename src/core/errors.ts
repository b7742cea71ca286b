/**
 * Errors are values. Every refusal or failure rta reports carries a code from
 * the one catalogue below; the CLI turns a code into an exit status and the MCP
 * front into a tool result (or, for an unknown tool, a JSON-RPC error).
 * Messages are lowercase, carry no final period, and never echo a secret.
 */

import { type CodeEntry, Exit, type ExitCode } from "./exitCodes.ts";
import { auditCodes, offsiteCodes } from "./offsiteCodes.ts";
import { personCodes } from "./personCodes.ts";
import { storeCodes } from "./storeCodes.ts";

export { Exit, type ExitCode } from "./exitCodes.ts";

/** The one catalogue of codes. A code not listed here cannot be raised. */
export const codes = {
  "core.tool.unknown": {
    doc: "no tool or capability has that name (never-a-tool names get this answer too)",
    exit: Exit.usage,
  },
  "core.cli.usage": { doc: "the command line could not be parsed", exit: Exit.usage },
  "core.output.failed": {
    doc: "stdout could not be written: the disk behind it is full, or it was closed (a closed pipe ends rta quietly)",
    exit: Exit.failure,
  },
  "core.mcp.badargs": {
    doc: "an argument has the wrong shape or the tool has no such argument",
    exit: Exit.usage,
  },
  "core.input.invalid": {
    doc: "a value has the wrong type or form: a typo on the command line, or a pattern or glob RE2 cannot take",
    exit: Exit.usage,
  },
  "core.input.option": { doc: "a value is none of the options the input names", exit: Exit.usage },
  "core.input.range": {
    doc: "a number lies outside the input's range, or a duration is longer than a century",
    exit: Exit.usage,
  },
  "core.input.missing": { doc: "a required input was left out or sent empty", exit: Exit.usage },
  "core.input.toolarge": {
    doc: "an input read from a pipe is larger than rta accepts",
    exit: Exit.usage,
  },
  "core.result.toolarge": {
    doc: "the result passed the server's hard bound (--max-result); the call ran, ask for less",
    exit: Exit.tooLarge,
  },
  "core.mcp.result.toolarge": {
    doc: "a tree, chart or object passed the 80 KiB a model is sent and cannot be cut; narrow the call",
    exit: Exit.tooLarge,
  },
  "core.mcp.result.cut": {
    doc: "a warning: a table or log was cut to fit the 80 KiB a model is sent; its total counts every row",
    exit: Exit.ok,
  },
  "core.mcp.subscriptions.full": {
    doc: "a connection already holds 64 resource subscriptions, the most it may; unsubscribe from one first",
    exit: Exit.usage,
  },
  "core.config.invalid": {
    doc: "the operator's config is not readable as config, or sets a value the capability does not take",
    exit: Exit.usage,
  },
  "core.profile.unreadable": {
    doc: "config.toml has not read since the server started, so what a profile could change is refused",
    exit: Exit.refused,
  },
  "core.profile.unknown": { doc: "no profile by that name is set up for the capability", exit: Exit.unavailable },
  "core.profile.fenced": {
    doc: "a profile's only: list does not reach the value the call resolves to",
    exit: Exit.refused,
  },
  "core.config.unreadable": {
    doc: "a config file could not be read as its format, so rta will not write into it",
    exit: Exit.failure,
  },
  "core.grant.required": {
    doc: "the call needs a grant a person issued (a write, a destructive call, a read that reaches or reveals)",
    exit: Exit.refused,
  },
  "core.grant.ceiling": {
    doc: "the team policy does not let this grant or token be issued or spent (never, max_ttl, max_uses, agents, max_token_ttl)",
    exit: Exit.refused,
  },
  "core.consent.declined": {
    doc: "the capability is on a confirm list and the person asked through the client declined, or did not answer in time, or the answer's request state was altered, expired or used already",
    exit: Exit.refused,
  },
  "core.consent.unavailable": {
    doc: "the capability is on a confirm list and no person could be asked: the client declared no elicitation",
    exit: Exit.refused,
  },
  "core.consent.asked": {
    doc: "the capability is on a confirm list and the client was asked to put it to its user: the call runs once it is retried with an accepting answer",
    exit: Exit.refused,
  },
  "core.plugin.index": {
    doc: "the index of installed plugins does not read as rta's (cut short, edited by hand, another version)",
    exit: Exit.failure,
  },
  "core.plugin.changed": {
    doc: "the plugin's binary changed since it was installed: no grant is issued for a binary nobody installed",
    exit: Exit.refused,
  },
  "core.plugin.unknown": { doc: "no plugin by that name is installed", exit: Exit.unavailable },
  "core.grant.unknown": { doc: "no grant or lock has that id, or none matched", exit: Exit.unavailable },
  "core.lock.locked": { doc: "a person locked this agent or capability: the instant no", exit: Exit.refused },
  "core.rate.limited": {
    doc: "the agent called this capability more often than config's [limits] lets it; retry_after_seconds says when to",
    exit: Exit.refused,
  },
  "core.policy.unreadable": {
    doc: "the team policy file could not be read; grants are refused until it can be",
    exit: Exit.failure,
  },
  "core.store.unavailable": {
    doc: "the grant and lock store could not be opened or written (a full disk), another process holds it locked (it is named), or it was removed or replaced under a running server",
    exit: Exit.failure,
  },
  "core.record.unavailable": {
    doc: "the call's line could not be written to the record (a full disk, a file or store not writable): a call with effects did not run, a free read's answer was withheld",
    exit: Exit.refused,
  },
  "core.path.outside": { doc: "the path is outside every root, or climbs above its root", exit: Exit.refused },
  "core.path.symlink": {
    doc: "the path passes through a link that leaves its root, or a loop of links",
    exit: Exit.refused,
  },
  "core.path.hardlink": {
    doc: "a file with more than one hard link, which could be a file outside the root (allowed in config)",
    exit: Exit.refused,
  },
  "core.path.withheld": {
    doc: "rta's own dirs and its temporary files of a secret, the kernel's trees, .git internals for writes and git's credential files are withheld",
    exit: Exit.refused,
  },
  "core.path.unreadable": {
    doc: "the path lies under a root, or in a directory, the server cannot read",
    exit: Exit.refused,
  },
  "core.path.invalid": { doc: "the path holds a NUL byte or is longer than the system allows", exit: Exit.usage },
  "fs.notfound": { doc: "nothing is at that path", exit: Exit.unavailable },
  "fs.walk.skipped": {
    doc: "a warning: a search passed by entries the server may not read (their mode) and counts them; the CLI exits 1, as find does",
    exit: Exit.failure,
  },

  "fs.grep.nomatch": {
    doc: "not a refusal: fs.grep found no matching line; the CLI exits 1, as grep and rg do",
    exit: Exit.failure,
  },
  "fs.exists": { doc: "something is already at that path", exit: Exit.failure },
  "fs.notfile": { doc: "the path is not a regular file", exit: Exit.failure },
  "fs.notdir": { doc: "the path is not a directory", exit: Exit.failure },
  "fs.binary": { doc: "the file holds binary data, which fs.read does not return as text", exit: Exit.failure },
  "fs.notempty": { doc: "the directory is not empty and recursive was not asked for", exit: Exit.failure },
  "fs.denied": { doc: "the operating system refused the server: permission denied", exit: Exit.refused },
  "fs.full": { doc: "the device has no space left (or the user's quota is used up)", exit: Exit.failure },
  "fs.readonly": { doc: "the file system is mounted read-only", exit: Exit.failure },
  "net.dns.noserver": { doc: "there is no DNS server to ask", exit: Exit.unavailable },
  "net.dns.timeout": { doc: "no DNS server answered in time", exit: Exit.failure },
  "net.dns.nxdomain": { doc: "the name does not exist (NXDOMAIN)", exit: Exit.unavailable },
  "net.dns.failed": { doc: "the DNS server answered with an error (SERVFAIL, REFUSED, ...)", exit: Exit.failure },
  "net.destination.private": {
    doc: "the destination is a loopback, private, link-local or metadata address the grant does not name",
    exit: Exit.refused,
  },
  "net.destination.host": { doc: "a redirect leads to a host the grant does not cover", exit: Exit.refused },
  "net.badhost": { doc: "not a host name or address", exit: Exit.usage },
  "net.timeout": { doc: "the destination did not answer in time (connect, headers or body)", exit: Exit.failure },
  "net.unreachable": { doc: "the destination refused the connection or could not be reached", exit: Exit.failure },
  "net.tls": { doc: "the TLS handshake failed", exit: Exit.failure },
  "net.tool.missing": { doc: "a system tool the capability runs is not installed", exit: Exit.unavailable },

  "core.plugin.invalid": {
    doc: "a plugin's describe was malformed, too large, or declared what it may not: the plugin is unavailable",
    exit: Exit.unavailable,
  },
  "core.plugin.failed": {
    doc: "a plugin crashed, sent a malformed answer, or answered outside its declared shape or prefix",
    exit: Exit.failure,
  },
  "core.call.cancelled": { doc: "the caller cancelled the call before it finished", exit: Exit.failure },
  "core.internal": {
    doc: "rta failed in a way it did not expect; the message is kept bare on purpose",
    exit: Exit.failure,
  },
  "core.platform.unsupported": {
    doc: "the capability needs an operating system feature this machine lacks",
    exit: Exit.unavailable,
  },
  "jwt.malformed": { doc: "the token is not a well-formed JWT", exit: Exit.usage },
  "note.notfound": { doc: "no note has that id", exit: Exit.unavailable },
  "proc.notfound": { doc: "no process has that pid", exit: Exit.unavailable },
  "proc.denied": { doc: "the process is not rta's to signal", exit: Exit.refused },
  "proc.unreadable": { doc: "the process table could not be read", exit: Exit.failure },
  "disk.unreadable": { doc: "the mount table could not be read", exit: Exit.failure },
  "sys.unreadable": { doc: "a system figure could not be read", exit: Exit.failure },
  ...storeCodes,
  ...offsiteCodes,
  ...auditCodes,
  ...personCodes,
} as const satisfies Record<string, CodeEntry>;

export type Code = keyof typeof codes;

/** A refusal or failure with a catalogued code, a message and an optional hint. */
export class RtaError extends Error {
  readonly code: Code;
  readonly hint: string | undefined;
  /** what only the record keeps (a plugin's stderr tail): never shown to a caller, and dropped by redaction */
  detail?: string;
  /** whole seconds to wait before the call can be sent again (core.rate.limited), told to the caller */
  retryAfter?: number;

  constructor(code: Code, message: string, hint?: string) {
    super(message);
    this.name = "RtaError";
    this.code = code;
    this.hint = hint;
  }

  get exit(): ExitCode {
    // a plugin's own code (pluginError) is in no catalogue: it failed
    return codes[this.code]?.exit ?? Exit.failure;
  }
}

/**
 * A plugin's own error, with a code under its prefix (`note.notfound`) that
 * the catalogue may not list: its exit status is the catalogue's when it is
 * listed, a failure's otherwise. The caller checks the prefix; this refuses nothing.
 */
export function pluginError(code: string, message: string, hint?: string): RtaError {
  return new RtaError(code as Code, message, hint);
}

/**
 * Turns anything thrown into an RtaError. An unexpected error becomes
 * `core.internal` with a bare message: its text and stack may carry internals,
 * so they are kept out of what a caller is shown.
 */
export function asRtaError(thrown: unknown): RtaError {
  if (thrown instanceof RtaError) return thrown;
  // What the system says of a file is no bug of rta's: said as such, and never with the path the errno carries.
  switch ((thrown as NodeJS.ErrnoException | undefined)?.code) {
    case "EACCES":
    case "EPERM":
      return new RtaError(
        "fs.denied",
        "the system refused it: permission denied",
        "the person running rta can change the owner or mode of what it names",
      );
    case "ENOSPC":
    case "EDQUOT":
      return new RtaError("fs.full", "no space is left on the device", "free some space, then try again");
    case "EROFS":
      return new RtaError("fs.readonly", "the file system is read-only", "write somewhere else");
  }
  return new RtaError(
    "core.internal",
    "rta hit an unexpected failure",
    "run the same command with RTA_DEBUG=1 to see the details, and report it",
  );
}

/** True when `code` is in the catalogue; used where a code arrives as text (records, plugins). */
export function isCode(code: string): code is Code {
  return Object.hasOwn(codes, code);
}
