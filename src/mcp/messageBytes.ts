/**
 * The bytes of the one message the stdio framer is reading, counted against
 * the limit as they arrive. Past the limit nothing more is held: the caller
 * is told once and the bytes already held are let go, so a message cannot
 * make the server hold more than the limit. A chunk's bytes are copied once,
 * since the stream may reuse its buffer.
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
    if (this.held > this.limit) {
      this.parts = [];
      return false;
    }
    this.parts.push(bytes.slice());
    return true;
  }

  /** The message as text; it is still held until clear(). Refuses nothing: the framer has checked it is whole JSON. */
  text(): string {
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
