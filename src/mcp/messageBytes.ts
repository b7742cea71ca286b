/**
 * The bytes of the one message the stdio framer is reading, counted against
 * the limit as they arrive. Past the limit nothing more is held: the caller
 * is told once and the bytes already held are let go, so a message cannot
 * make the server hold more than the limit. A chunk's bytes are copied once
 * when the message goes on past it, since the stream may reuse its buffer;
 * the chunk that ends the message is decoded where it lies, before it can be.
 */

export class MessageBytes {
  private parts: Uint8Array[] = [];
  private held = 0;
  private readonly decoder = new TextDecoder();

  constructor(private readonly limit: number) {}

  /** Bytes of the message so far. */
  get size(): number {
    return this.held;
  }

  /** Whether a message of `seen` bytes is past the limit; if so, nothing is held from now on. */
  pastLimit(seen: number): boolean {
    if (seen <= this.limit) return false;
    this.parts = [];
    return true;
  }

  /** Adds bytes to the message; false (and nothing held) when that takes it past the limit. */
  take(bytes: Uint8Array): boolean {
    if (bytes.length === 0) return true;
    this.held += bytes.length;
    if (this.pastLimit(this.held)) return false;
    // a copy: a Buffer's own slice() is a view of the same memory
    this.parts.push(Uint8Array.prototype.slice.call(bytes));
    return true;
  }

  /**
   * The message as text, its last bytes `last` added: undefined (and nothing
   * held) when they take it past the limit. A message wholly in `last` is
   * decoded with no copy; it is read before the caller returns. Refuses
   * nothing else: the framer has checked it is whole JSON.
   */
  finish(last: Uint8Array): string | undefined {
    if (this.held === 0) {
      if (last.length <= this.limit) return this.decoder.decode(last);
      this.held = last.length;
      return undefined;
    }
    if (!this.take(last)) return undefined;
    return this.decoder.decode(this.parts.length === 1 ? (this.parts[0] as Uint8Array) : concat(this.parts, this.held));
  }

  /** Forgets the message. */
  clear(): void {
    this.parts = [];
    this.held = 0;
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
