/**
 * Splits a byte stream into JSON messages by following the JSON grammar
 * itself, not lines, so a message cannot be made small by spreading it
 * across lines: each message is measured as its bytes arrive, and past the
 * limit the framer stops holding it, reports it once and reads no further.
 *
 * It is also a full incremental syntax check (RFC 8259, UTF-8 included), so
 * one malformed message costs only itself. At the first byte that cannot
 * continue a JSON text the message is reported malformed and dropped, and
 * reading resumes at that byte when it begins a line (after any indentation),
 * else after the next newline. A raw newline or other control character
 * inside a string is such a byte: an unclosed `"` or `{` no longer swallows
 * the lines after it.
 *
 * It is on every call's path: one pass over the bytes, state in a few
 * numbers, no allocation per byte (a message's bytes are copied once per
 * chunk, and the container stack grows by doubling).
 */

/** What the framer hands on for each top-level value. */
export type Frame = { kind: "message"; text: string } | { kind: "malformed" };

const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// Where the scanner is. Between messages it is IDLE or JUNK; inside one, the rest.
const IDLE = 0; // whitespace, or '{' / '[' opening a message
const JUNK = 1; // after a bad byte: skipping to the next newline
const VALUE = 2; // a value must come (after ':', or ',' in an array)
const ARRAY_FIRST = 3; // after '[': a value or ']'
const OBJECT_FIRST = 4; // after '{': a key or '}'
const KEY = 5; // after ',' in an object: a key
const AFTER_KEY = 6; // a ':'
const AFTER_VALUE = 7; // ',' or the close of the container
const STRING = 8;
const ESCAPE = 9; // after '\'
const UNICODE = 10; // in \uXXXX: `pending` hex digits to go
const UTF8 = 11; // in a multi-byte character: `pending` continuation bytes to go, the next in lo..hi
const NUM_MINUS = 12; // '-': a digit must come
const NUM_ZERO = 13; // a leading 0: '.', 'e' or the end
const NUM_INT = 14;
const NUM_DOT = 15; // '.': a digit must come
const NUM_FRAC = 16;
const NUM_EXP = 17; // 'e': a sign or a digit
const NUM_EXP_SIGN = 18; // a digit must come
const NUM_EXP_DIGITS = 19;
const LITERAL = 20; // in true, false or null: the rest of `literal` from `pending`

const TRUE = new TextEncoder().encode("true");
const FALSE = new TextEncoder().encode("false");
const NULL = new TextEncoder().encode("null");

/** The literal a value starting with `b` must be, if any. */
function literalFor(b: number): Uint8Array | undefined {
  return b === TRUE[0] ? TRUE : b === FALSE[0] ? FALSE : b === NULL[0] ? NULL : undefined;
}

const IN_OBJECT = 1;
const IN_ARRAY = 0;

function isSpace(b: number): boolean {
  return b === SPACE || b === NEWLINE || b === RETURN || b === TAB;
}

function isHex(b: number): boolean {
  return (b >= ZERO && b <= NINE) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

/** A byte that may follow '\' in a string: " \ / b f n r t (u is handled apart). */
function isEscape(b: number): boolean {
  return (
    b === QUOTE || b === BACKSLASH || b === 0x2f || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74
  );
}

export class JsonFramer {
  private parts: Uint8Array[] = [];
  private size = 0;
  private state = IDLE;
  /** open containers, innermost last: IN_OBJECT or IN_ARRAY */
  private stack = new Uint8Array(64);
  private depth = 0;
  /** whether the string being read is an object's key */
  private key = false;
  /** digits, bytes or letters still to come in UNICODE, UTF8 or LITERAL */
  private pending = 0;
  private lo = 0;
  private hi = 0;
  private literal: Uint8Array = TRUE;
  /** whether what came since the last newline, up to the end of the last chunk, is only indentation */
  private atLineStart = true;
  private stopped = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly limit: number,
    private readonly onFrame: (frame: Frame) => void,
    private readonly onTooLarge: (bytesSeen: number) => void,
  ) {}

  /** Feeds the next chunk of the stream. After a message past the limit, it ignores everything. */
  push(chunk: Uint8Array): void {
    if (this.stopped) return;
    const n = chunk.length;
    let start = this.state >= VALUE ? 0 : -1; // where the current message's bytes begin in this chunk
    let i = 0;
    while (i < n && !this.stopped) {
      const b = chunk[i] as number;
      switch (this.state) {
        case IDLE:
          if (b === OPEN_BRACE || b === OPEN_BRACKET) {
            start = i;
            this.open(b === OPEN_BRACE ? IN_OBJECT : IN_ARRAY);
          } else if (!isSpace(b)) {
            this.onFrame({ kind: "malformed" });
            this.state = JUNK;
          }
          i++;
          continue;
        case JUNK: {
          const nl = chunk.indexOf(NEWLINE, i);
          if (nl === -1) i = n;
          else {
            this.state = IDLE;
            i = nl + 1;
          }
          continue;
        }
        case STRING: {
          // The bulk of any message: plain ASCII runs straight through.
          while (i < n) {
            const c = chunk[i] as number;
            if (c < SPACE || c === QUOTE || c === BACKSLASH || c >= 0x80) break;
            i++;
          }
          if (i === n) continue;
          const c = chunk[i] as number;
          if (c === QUOTE) this.state = this.key ? AFTER_KEY : AFTER_VALUE;
          else if (c === BACKSLASH) this.state = ESCAPE;
          else if (c >= 0x80 && this.utf8Lead(c)) this.state = UTF8;
          else break;
          i++;
          continue;
        }
        case ESCAPE:
          if (b === 0x75) {
            this.state = UNICODE;
            this.pending = 4;
          } else if (isEscape(b)) this.state = STRING;
          else break;
          i++;
          continue;
        case UNICODE:
          if (!isHex(b)) break;
          if (--this.pending === 0) this.state = STRING;
          i++;
          continue;
        case UTF8:
          if (b < this.lo || b > this.hi) break;
          this.lo = 0x80;
          this.hi = 0xbf;
          if (--this.pending === 0) this.state = STRING;
          i++;
          continue;
        case LITERAL:
          if (b !== this.literal[this.pending]) break;
          if (++this.pending === this.literal.length) this.state = AFTER_VALUE;
          i++;
          continue;
        case VALUE:
        case ARRAY_FIRST:
          if (isSpace(b)) {
            i++;
            continue;
          }
          if (b === CLOSE_BRACKET && this.state === ARRAY_FIRST) {
            if (this.close(chunk, start, i)) start = -1;
            i++;
            continue;
          }
          if (!this.startValue(b)) break;
          i++;
          continue;
        case OBJECT_FIRST:
        case KEY:
          if (isSpace(b)) {
            i++;
            continue;
          }
          if (b === QUOTE) {
            this.state = STRING;
            this.key = true;
          } else if (b === CLOSE_BRACE && this.state === OBJECT_FIRST) {
            if (this.close(chunk, start, i)) start = -1;
          } else break;
          i++;
          continue;
        case AFTER_KEY:
          if (b === COLON) this.state = VALUE;
          else if (!isSpace(b)) break;
          i++;
          continue;
        case AFTER_VALUE: {
          if (isSpace(b)) {
            i++;
            continue;
          }
          const inObject = this.stack[this.depth - 1] === IN_OBJECT;
          if (b === COMMA) this.state = inObject ? KEY : VALUE;
          else if (b === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
            if (this.close(chunk, start, i)) start = -1;
          } else break;
          i++;
          continue;
        }
        default:
          // A number: its bytes while they continue it; at the first that does not, it ends there
          // (the byte is read again as what follows a value) or, where a digit must come, is bad.
          if (this.number(b)) {
            i++;
            continue;
          }
          if (
            this.state === NUM_MINUS ||
            this.state === NUM_DOT ||
            this.state === NUM_EXP ||
            this.state === NUM_EXP_SIGN
          )
            break;
          this.state = AFTER_VALUE;
          continue;
      }
      // `b` cannot continue the message: drop it, and say so once.
      if (this.tooLarge(this.size + (start === -1 ? 0 : i - start))) return;
      this.drop();
      if (b === NEWLINE) i++;
      else if (!this.beginsLine(chunk, i)) this.state = JUNK;
      start = -1;
    }
    if (this.stopped) return;
    if (this.state >= VALUE && start !== -1) this.take(chunk.subarray(start));
    this.atLineStart = this.endsAtLineStart(chunk);
  }

  /** The stream ended: a message cut off in the middle is malformed. */
  end(): void {
    if (this.stopped) return;
    if (this.state >= VALUE) this.onFrame({ kind: "malformed" });
    this.reset();
    this.state = IDLE;
  }

  private open(kind: number): void {
    if (this.depth === this.stack.length) {
      const grown = new Uint8Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.depth++] = kind;
    this.state = kind === IN_OBJECT ? OBJECT_FIRST : ARRAY_FIRST;
  }

  /** Closes the innermost container at `i`; true when that ended the message (and it was handed on). */
  private close(chunk: Uint8Array, start: number, i: number): boolean {
    this.depth--;
    if (this.depth > 0) {
      this.state = AFTER_VALUE;
      return false;
    }
    this.state = IDLE;
    this.take(chunk.subarray(start === -1 ? 0 : start, i + 1));
    if (!this.stopped) this.emit();
    return true;
  }

  /** The first byte of a value; false when no value starts with it. */
  private startValue(b: number): boolean {
    if (b === QUOTE) {
      this.state = STRING;
      this.key = false;
    } else if (b === OPEN_BRACE) this.open(IN_OBJECT);
    else if (b === OPEN_BRACKET) this.open(IN_ARRAY);
    else if (b === MINUS) this.state = NUM_MINUS;
    else if (b === ZERO) this.state = NUM_ZERO;
    else if (b > ZERO && b <= NINE) this.state = NUM_INT;
    else {
      const literal = literalFor(b);
      if (literal === undefined) return false;
      this.literal = literal;
      this.pending = 1;
      this.state = LITERAL;
    }
    return true;
  }

  /** Whether `b` continues the number being read (and moves on if so). */
  private number(b: number): boolean {
    const digit = b >= ZERO && b <= NINE;
    switch (this.state) {
      case NUM_MINUS:
        if (!digit) return false;
        this.state = b === ZERO ? NUM_ZERO : NUM_INT;
        return true;
      case NUM_ZERO:
      case NUM_INT:
        if (digit) return this.state === NUM_INT;
        if (b === DOT) this.state = NUM_DOT;
        else if (b === 0x65 || b === 0x45) this.state = NUM_EXP;
        else return false;
        return true;
      case NUM_DOT:
      case NUM_FRAC:
        if (digit) this.state = NUM_FRAC;
        else if (this.state === NUM_FRAC && (b === 0x65 || b === 0x45)) this.state = NUM_EXP;
        else return false;
        return true;
      case NUM_EXP:
        if (b === 0x2b || b === MINUS) this.state = NUM_EXP_SIGN;
        else if (digit) this.state = NUM_EXP_DIGITS;
        else return false;
        return true;
      default: // NUM_EXP_SIGN, NUM_EXP_DIGITS
        if (!digit) return false;
        this.state = NUM_EXP_DIGITS;
        return true;
    }
  }

  /** A byte from 0x80 in a string: the lead of a well-formed UTF-8 character, whose next byte must be in lo..hi. */
  private utf8Lead(b: number): boolean {
    this.lo = 0x80;
    this.hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) this.pending = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      this.pending = 2;
      if (b === 0xe0) this.lo = 0xa0; // no overlong form
      if (b === 0xed) this.hi = 0x9f; // no surrogate
    } else if (b >= 0xf0 && b <= 0xf4) {
      this.pending = 3;
      if (b === 0xf0) this.lo = 0x90; // no overlong form
      if (b === 0xf4) this.hi = 0x8f; // nothing past U+10FFFF
    } else return false;
    return true;
  }

  /** Whether the byte at `i` begins a line: only spaces or tabs stand between it and a newline (or the stream's start). */
  private beginsLine(chunk: Uint8Array, i: number): boolean {
    let j = i - 1;
    while (j >= 0 && (chunk[j] === SPACE || chunk[j] === TAB)) j--;
    return j >= 0 ? chunk[j] === NEWLINE : this.atLineStart;
  }

  /** Whether the next chunk's first byte would begin a line. */
  private endsAtLineStart(chunk: Uint8Array): boolean {
    return this.beginsLine(chunk, chunk.length);
  }

  /** Past the limit: report it once, hold nothing, read no further. */
  private tooLarge(seen: number): boolean {
    if (seen <= this.limit) return false;
    this.stopped = true;
    this.parts = [];
    this.onTooLarge(seen);
    return true;
  }

  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.size += bytes.length;
    if (this.tooLarge(this.size)) return;
    // The chunk may be reused by the stream: keep a copy of only the bytes this message owns.
    this.parts.push(bytes.slice());
  }

  private emit(): void {
    const whole = this.parts.length === 1 ? (this.parts[0] as Uint8Array) : concat(this.parts, this.size);
    const text = this.decoder.decode(whole);
    this.reset();
    this.onFrame({ kind: "message", text });
  }

  /** The message cannot be JSON: it is said once and forgotten; reading resumes where the caller says. */
  private drop(): void {
    this.reset();
    this.onFrame({ kind: "malformed" });
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.depth = 0;
    this.state = IDLE;
    // a deep message's stack is not kept for the session's life
    if (this.stack.length > 4096) this.stack = new Uint8Array(64);
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
