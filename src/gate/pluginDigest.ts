/**
 * The artifact a plugin's call would run. A grant on a plugin capability is
 * pinned to the sha256 of the binary it was issued against, and a call of one
 * runs only while the binary still hashes to what described it. The hash is
 * kept by the file's identity (plugins/digest.ts), so a call pays an open and
 * an fstat, not a read of the binary.
 */
import type { Capability } from "../core/capability.ts";
import { fileDigest } from "../plugins/digest.ts";
import { changedSinceDescribed } from "../plugins/refusals.ts";

/**
 * The sha256 the binary behind `cap` hashes to now: null for a built-in, and
 * "" for a binary that cannot be read (no grant is pinned to that); for an
 * upstream's tool, the pin of its upstream's approval. Refuses nothing.
 */
export function artifactDigest(cap: Capability): string | null {
  // an upstream's tool: the pin of the approval it is offered under (its tools' definitions, its executable)
  if (cap.upstream !== undefined) return cap.upstream.pin ?? null;
  if (cap.plugin === undefined) return null;
  try {
    return fileDigest(cap.plugin.file).sha256;
  } catch {
    return "";
  }
}

/**
 * Refuses a call of a plugin capability whose binary, hashing to `now`
 * (artifactDigest's answer), no longer hashes to the one that described it
 * (replaced or removed under a running server), as core.plugin.invalid: what
 * it declared may not be what it would do. A server started again describes
 * it again.
 */
export function checkDescribedDigest(cap: Capability, now: string | null): void {
  if (cap.plugin === undefined || now === cap.plugin.digest) return;
  throw changedSinceDescribed(cap.plugin.name, now === "");
}
