/**
 * Splits a byte stream into JSON messages by following the JSON structure
 * itself (objects, arrays, strings and escapes), not by lines, so a message
 * cannot be made small by spreading it across lines. Each message is measured
 * as its bytes arrive: past the limit the framer stops holding it and reports
 * it once, and nothing after that is read. No message is ever held whole
 * beyond the limit.
 */

/** What the framer hands on for each top-level value. */
export type Frame = { kind: "message"; text: string } | { kind: "malformed" };

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

export class JsonFramer {
  private parts: Uint8Array[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** inside a run of bytes that cannot start a message, skipped to the next newline */
  private junk = false;
  private stopped = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly limit: number,
    private readonly onFrame: (frame: Frame) => void,
    private readonly onTooLarge: (bytesSeen: number) => void,
  ) {}

  /** Feeds the next chunk of the stream. After a message past the limit, it ignores everything. */
  push(chunk: Uint8Array): void {
    let start = -1; // where the current message's bytes begin in this chunk
    for (let i = 0; i < chunk.length && !this.stopped; i++) {
      const b = chunk[i] as number;
      if (this.junk) {
        if (b === NEWLINE) {
          this.junk = false;
          this.onFrame({ kind: "malformed" });
        }
        continue;
      }
      if (this.depth === 0) {
        if (isSpace(b)) continue;
        if (b !== OPEN_BRACE && b !== OPEN_BRACKET) {
          this.junk = true;
          continue;
        }
        start = i;
        this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
        continue;
      }
      if (b === QUOTE) this.inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 0) {
          this.take(chunk.subarray(start === -1 ? 0 : start, i + 1));
          start = -1;
          if (!this.stopped) this.emit();
        }
      }
    }
    if (this.depth > 0 && !this.stopped) this.take(chunk.subarray(start === -1 ? 0 : start));
  }

  /** The stream ended: a message cut off in the middle is malformed. */
  end(): void {
    if (this.stopped) return;
    if (this.depth > 0 || this.junk) this.onFrame({ kind: "malformed" });
    this.reset();
  }

  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.size += bytes.length;
    if (this.size > this.limit) {
      this.stopped = true;
      const seen = this.size;
      this.parts = [];
      this.onTooLarge(seen);
      return;
    }
    // The chunk may be reused by the stream: keep a copy of only the bytes this message owns.
    this.parts.push(bytes.slice());
  }

  private emit(): void {
    const whole = this.parts.length === 1 ? (this.parts[0] as Uint8Array) : concat(this.parts, this.size);
    const text = this.decoder.decode(whole);
    this.reset();
    this.onFrame({ kind: "message", text });
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.junk = false;
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
