/**
 * What chains the record's lines. A line's `mac` is HMAC-SHA256, under the
 * data dir's key, of the previous line's mac and this line's canonical JSON
 * (every field but the mac, keys sorted). The previous line is the one before
 * it in the file, whatever its session, so altering, removing, reordering or
 * making up a line, or cutting out a whole session, breaks the chain for
 * anyone without the key.
 *
 * `chainHash` is the unkeyed sha256 chain records were written with before
 * the key: kept only so an old record can still be read and named as such.
 */
import { createHash } from "node:crypto";
import { canonical } from "../core/canonical.ts";
import { macOf } from "./lineText.ts";

/** A line's HMAC-SHA256 under the key, chained to the mac of the line before it; the line's own mac left out. */
export function chainMac(key: Buffer, prev: string, line: object): string {
  const { mac: _mac, ...rest } = line as Record<string, unknown>;
  return macOf(key, prev, canonical(rest));
}

/** The unkeyed chain of a record written before the key, per session. */
export function chainHash(prev: string, line: object): string {
  const { hash: _hash, ...rest } = line as Record<string, unknown>;
  return createHash("sha256").update(prev).update("\n").update(canonical(rest)).digest("hex");
}
