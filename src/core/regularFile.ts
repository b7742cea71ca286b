/**
 * A small file of rta's own read whole, only when it is a regular file: a
 * FIFO put at its name would have the reader wait for a writer that never
 * comes (a server's every kv call with it), and a device has effects of its
 * own when opened. The name is looked at first and a non-file is never
 * opened; the file is then opened without waiting and looked at again, since
 * the name may have changed between the two.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

/**
 * The bytes of the regular file at `path`, with its mode. Throws the system's
 * error (ENOENT, EACCES…), or one with the code EISDIR for a directory,
 * ENOTFILE for anything else that is not a regular file, and EFBIG for one
 * past `maxBytes`, which is not read.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<{ bytes: Uint8Array; mode: number }> {
  // read with the synchronous calls: a small local file opened without waiting costs a few µs so, and a server's
  // every kv call reads the identity; a promise per step cost it an event-loop turn each
  return readRegularFileSync(path, maxBytes);
}

/** readRegularFile for a caller that cannot wait (a server's catalogue made again as a list asks); throws as it does. */
export function readRegularFileSync(path: string, maxBytes: number): { bytes: Uint8Array; mode: number } {
  regular(statSync(path));
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const s = fstatSync(fd);
    regular(s);
    if (s.size > maxBytes) throw Object.assign(new Error("file too large"), { code: "EFBIG" });
    return { bytes: readWhole(fd, s.size, maxBytes), mode: s.mode };
  } finally {
    closeSync(fd);
  }
}

/** The bytes of open file `fd` to its end, expecting `size` of them; past `maxBytes` (the file grew) is EFBIG. */
export function readWhole(fd: number, size: number, maxBytes: number): Uint8Array {
  let buf = Buffer.allocUnsafe(Math.max(size, 1));
  let got = 0;
  for (;;) {
    if (got === buf.length) {
      if (buf.length > maxBytes) throw Object.assign(new Error("file too large"), { code: "EFBIG" });
      const more = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
      buf.copy(more, 0, 0, got);
      buf = more;
    }
    const n = readSync(fd, buf, got, buf.length - got, got);
    if (n === 0) break;
    got += n;
  }
  if (got > maxBytes) throw Object.assign(new Error("file too large"), { code: "EFBIG" });
  return new Uint8Array(buf.buffer, buf.byteOffset, got);
}

function regular(s: Stats): void {
  if (s.isFile()) return;
  throw Object.assign(new Error("not a regular file"), { code: s.isDirectory() ? "EISDIR" : "ENOTFILE" });
}
