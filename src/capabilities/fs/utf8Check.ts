/**
 * Whether a file read in chunks was UTF-8 throughout, for fs.read: a text
 * that was not is shown with U+FFFD in place of the bytes, and a person
 * copying it with `rta fs read f > copy` is told so.
 */
import { isUtf8 } from "node:buffer";

/**
 * Whether the bytes read, chunk after chunk, were all UTF-8: a sequence split
 * between two chunks is checked whole, with the next one.
 */
export class Utf8Check {
  replaced = false;
  private held: Buffer = Buffer.alloc(0);

  /** Takes the next chunk; `counted` false for one whose bytes are not shown, kept only for a sequence it starts. */
  check(chunk: Buffer, last: boolean, counted = true): void {
    if (this.replaced) return;
    const bytes = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    // Up to three bytes of a sequence the next chunk ends are held back, unless this is the last chunk.
    const keep = last ? 0 : incompleteTail(bytes);
    if (counted && !isUtf8(bytes.subarray(0, bytes.length - keep))) this.replaced = true;
    this.held = Buffer.from(bytes.subarray(bytes.length - keep));
  }
}

/** How many bytes at the end of `bytes` begin a UTF-8 sequence that runs past it (0 to 3). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}
