/**
 * The codes of the secret store (kv, keys) and of upstream MCP servers, kept
 * apart from errors.ts so each catalogue file stays readable; errors.ts spreads
 * them into the one catalogue, so a code is raised and documented alike.
 */
import { type CodeEntry, Exit } from "./exitCodes.ts";

/** kv.*, keys.* and upstream.* codes, in the shape of errors.ts's catalogue. */
export const storeCodes = {
  "keys.exists": { doc: "an identity file is already there; it is replaced only with --force", exit: Exit.failure },
  "keys.recipient.notfound": { doc: "the kv store is not encrypted to that recipient", exit: Exit.unavailable },
  "keys.recipient.kept": { doc: "the kv store would be left to nobody, or shut to this identity", exit: Exit.refused },
  "kv.clipboard.none": { doc: "no usable clipboard tool on PATH: wl-copy, xclip or pbcopy", exit: Exit.unavailable },
  "kv.edit.abandoned": { doc: "`rta kv edit` wrote nothing: its editor failed or was abandoned", exit: Exit.failure },
  "upstream.unavailable": {
    doc: "an upstream MCP server could not be reached, did not answer in time, or stopped; `rta upstream list` says more",
    exit: Exit.unavailable,
  },
  "upstream.quarantined": {
    doc: "an upstream's tool is withheld: the upstream, or this tool, was never approved (`rta upstream approve NAME`)",
    exit: Exit.refused,
  },
  "upstream.changed": {
    doc: "an upstream's tool is withheld: its definition, or the upstream's executable, changed since it was approved",
    exit: Exit.refused,
  },
  "upstream.declined": {
    doc: "`rta upstream approve` approved nothing: nobody was asked (piped, without --yes) or the answer was no",
    exit: Exit.refused,
  },
  "upstream.notfound": { doc: "config.toml names no upstream by that name", exit: Exit.unavailable },
  "upstream.exists": { doc: "config.toml names an upstream by that name already", exit: Exit.failure },
  "upstream.busy": {
    doc: "another rta held the upstream approvals' lock past the wait: it is approving or removing one",
    exit: Exit.failure,
  },
  "upstream.result.unsupported": {
    doc: "an upstream MCP server answered with a block rta does not pass on yet (an image, audio, a resource)",
    exit: Exit.failure,
  },
  "kv.locked": {
    doc: "the kv store cannot be opened here: no identity file can be read (none made yet, or the server was started without it)",
    exit: Exit.refused,
  },
  "kv.notfound": { doc: "the kv store holds no key by that name", exit: Exit.unavailable },
  "kv.format": {
    doc: "the kv store's plaintext is not rta's format (its line number is named, never its text), or the file is no age file",
    exit: Exit.failure,
  },
  "kv.decrypt": {
    doc: "the kv store does not open with the identity: it was encrypted to other recipients, or it is damaged",
    exit: Exit.failure,
  },
  "kv.identity.mode": {
    doc: "the identity file may be read or written by others (a mode wider than 0600): it is refused until narrowed",
    exit: Exit.refused,
  },
  "kv.identity.format": {
    doc: "the identity file holds a line that is no age identity, comment or blank (its line number is named, never its text)",
    exit: Exit.failure,
  },
  "kv.recipients": {
    doc: "the kv recipients file holds a line that is no age recipient, or a change would leave out the identity's own recipient",
    exit: Exit.failure,
  },
  "kv.busy": {
    doc: "another rta held the kv store's lock past the wait: it is changing the store",
    exit: Exit.failure,
  },
} as const satisfies Record<string, CodeEntry>;
