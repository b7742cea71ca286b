/**
 * A file's bytes read from the file once where a read asks again for bytes
 * the last one got: fs.read looks at a file's head to tell binary from text,
 * then reads the range it returns, and for a small file that is the same
 * bytes. The bytes are those of the first read, as one read would give.
 */
import type { FileBytes } from "../../core/access.ts";

/**
 * The same handle, its reads served from the last read's bytes where they lie
 * inside them; anything else is read from the file. Refuses nothing.
 */
export function readOnce<T extends FileBytes>(file: T): T {
  let held: { offset: number; bytes: Buffer } | undefined;
  const once: T = Object.create(file);
  once.read = (offset: number, length: number): Buffer => {
    if (held !== undefined && offset >= held.offset && offset + length <= held.offset + held.bytes.length) {
      const from = offset - held.offset;
      return held.bytes.subarray(from, from + length);
    }
    const bytes = file.read(offset, length);
    // an empty read holds nothing to serve again, and a pseudo file's size is learnt by reading it whole
    if (bytes.length > 0) held = { offset, bytes };
    return bytes;
  };
  return once;
}
