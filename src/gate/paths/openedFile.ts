/**
 * An opened file's bytes, read where they are: what a read handle, a file a
 * walk came to and a write handle's existing file all read through.
 */
import { closeSync, readSync } from "node:fs";
import type { ExistingFile } from "../../core/access.ts";

/** Reads up to `length` bytes of an opened file from `offset`; fewer at its end. Refuses nothing. */
export function readRange(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** An opened file handed to a capability to read, and closed by whoever opened it. */
export class OpenedFd implements ExistingFile {
  constructor(
    readonly fd: number,
    readonly size: number,
  ) {}

  read(offset: number, length: number): Buffer {
    return readRange(this.fd, offset, length);
  }

  close(): void {
    closeSync(this.fd);
  }
}
