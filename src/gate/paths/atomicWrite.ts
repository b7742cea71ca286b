/** A file written whole or not at all in a directory the path gate opened (a write handle's replace). */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { inFd } from "./procFd.ts";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/**
 * Replaces (or creates) `name` in an opened directory with `data`, whole or
 * not at all: a temporary file in the same directory, synced, then renamed
 * over the name. A link at the name is replaced, never written through.
 * Refuses nothing itself: what the OS refuses (EISDIR, ENOSPC) passes through.
 */
export function atomicWrite(parentFd: number, name: string, data: Uint8Array, mode: number): void {
  // a name is at most 255 bytes: the temporary one keeps a prefix of it short enough, counted in bytes
  const temp = `.${Buffer.from(name).subarray(0, 200).toString("utf8")}.rta-${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(inFd(parentFd, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(inFd(parentFd, temp));
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(inFd(parentFd, temp), inFd(parentFd, name));
  } catch (err) {
    unlinkSync(inFd(parentFd, temp));
    throw err;
  }
}
