/**
 * The sha256 of a plugin's binary, as a grant is pinned to it. Hashing a
 * compiled binary costs a read of every byte, so a digest is kept beside the
 * file's identity (device, inode, size, mtime and ctime, to the nanosecond)
 * and taken again only when any of these changes. The identity and the bytes
 * are read through one descriptor, so a file swapped at the name between the
 * two is never paired with the other's digest. A ctime cannot be set back
 * from user space, so a binary rewritten in place always reads as changed.
 */
import { createHash } from "node:crypto";
import { type BigIntStats, closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";

/** A binary's digest and the identity it was taken at. */
export interface Digest {
  /** sha256, lowercase hex */
  sha256: string;
  /** `dev:ino:size:mtimeNs:ctimeNs`: equal identities mean the bytes were not touched since */
  identity: string;
}

const known = new Map<string, Digest>();

/** A file's identity as the cache compares it; refuses nothing. */
export function identityOf(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * Tells the cache a digest taken earlier (an index entry's, recorded at
 * install), so a process that starts need not hash a binary nobody touched.
 * It is used only while the file's identity is still `identity`.
 */
export function rememberDigest(file: string, digest: Digest): void {
  known.set(file, digest);
}

/**
 * The digest of the file at `file` (never through a link at the name, never
 * waiting on a FIFO), from the cache while its identity is unchanged, else
 * read whole again (always with `rehash`). Refuses what the system refuses
 * (ENOENT, EACCES, ELOOP), passed through, and what is no file (code "not a file").
 */
export function fileDigest(file: string, rehash = false): Digest {
  const cached = known.get(file);
  if (!rehash && cached !== undefined) {
    // one lstat per call while nothing changed: a link put at the name, or any write, changes the identity
    const st = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    if (st?.isFile() && identityOf(st) === cached.identity) return cached;
  }
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return fdDigest(file, fd, rehash);
  } finally {
    closeSync(fd);
  }
}

/**
 * The digest of what `fd` (opened on `file`) holds, from the cache while its
 * identity is the one kept for `file`, else read whole through `fd` and kept.
 * Refuses what the system refuses, and what is no file (code "not a file").
 */
export function fdDigest(file: string, fd: number, rehash = false): Digest {
  const cached = known.get(file);
  const st = fstatSync(fd, { bigint: true });
  if (!st.isFile()) throw Object.assign(new Error(`${file} is not a file`), { code: "not a file" });
  const identity = identityOf(st);
  if (!rehash && cached?.identity === identity) return cached;
  const digest = { sha256: hashFd(fd), identity };
  known.set(file, digest);
  return digest;
}

const CHUNK = 1 << 20;

function hashFd(fd: number): string {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(CHUNK);
  let at = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, CHUNK, at);
    if (n === 0) break;
    hash.update(buf.subarray(0, n));
    at += n;
  }
  return hash.digest("hex");
}
