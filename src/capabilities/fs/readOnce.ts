/**
 * A file's bytes read from the file once where a read asks again for bytes
 * the last one got: fs.read looks at a file's head to tell binary from text,
 * then reads the range it returns, and for a small file that is the same
 * bytes. The bytes are those of the first read, as one read would give.
 */
import type { FileBytes } from "../../core/access.ts";

/** What fs.read asks of a handle besides its bytes: the path as sent, and its stat when it has one. */
type Described = FileBytes & { readonly sent: string; readonly stat?: unknown };

/**
 * A handle's reads served from the last read's bytes where they lie inside
 * them, beside its `sent` and `stat`. One class, so every call's is of one
 * shape: an object made per call on the handle as its prototype was of a new
 * shape each call, and the compiled code reading it was thrown away and
 * compiled again, call after call.
 */
class ReadOnce<T extends Described> implements FileBytes {
  readonly sent: string;
  readonly stat: T["stat"];
  private held: { offset: number; bytes: Buffer } | undefined = undefined;

  constructor(private readonly file: T) {
    this.sent = file.sent;
    this.stat = file.stat;
  }

  read(offset: number, length: number): Buffer {
    const held = this.held;
    if (held !== undefined && offset >= held.offset && offset + length <= held.offset + held.bytes.length) {
      const from = offset - held.offset;
      return held.bytes.subarray(from, from + length);
    }
    const bytes = this.file.read(offset, length);
    // an empty read holds nothing to serve again, and a pseudo file's size is learnt by reading it whole
    if (bytes.length > 0) this.held = { offset, bytes };
    return bytes;
  }
}

/**
 * The handle's `sent` and `stat`, and its reads served from the last read's
 * bytes where they lie inside them; anything else is read from the file.
 * Refuses nothing.
 */
export function readOnce<T extends Described>(file: T): ReadOnce<T> {
  return new ReadOnce(file);
}
