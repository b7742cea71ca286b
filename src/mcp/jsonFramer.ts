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
 * The grammar's states and steps are in jsonGrammar.ts; this file holds the
 * message: where it starts, its bytes, its size against the limit, and where
 * reading resumes after a bad byte.
 *
 * It is on every call's path: one pass over the bytes, state in a few
 * numbers, no allocation per byte (a message that arrives in one chunk is
 * decoded where it lies; one spread over chunks has each chunk's share
 * copied once; the container stack grows by doubling). The same pass counts
 * the message's values, so the request bound needs no second walk of it.
 */

/** What the framer hands on for each top-level value. */
export type Frame = { kind: "message"; text: string } | { kind: "malformed" };

/**
 * Told each frame; with a message, the values it holds: itself and every
 * member of every object and array in it, as requestValues.ts counts them
 * (a key repeated in one object counts each time).
 */
export type FrameHandler = (frame: Frame, values: number) => void;

import {
  AFTER_KEY,
  AFTER_VALUE,
  ARRAY_FIRST,
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  ESCAPE,
  IDLE,
  IN_ARRAY,
  IN_OBJECT,
  isEscape,
  isHex,
  isSpace,
  JsonScanner,
  JUNK,
  KEY,
  LITERAL,
  NEWLINE,
  numberNeedsDigit,
  OBJECT_FIRST,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
  STRING,
  TAB,
  UNICODE,
  UTF8,
  VALUE,
} from "./jsonGrammar.ts";
import { MessageBytes } from "./messageBytes.ts";

export class JsonFramer extends JsonScanner {
  private readonly message: MessageBytes;
  /** whether what came since the last newline, up to the end of the last chunk, is only indentation */
  private atLineStart = true;
  private stopped = false;
  /** values begun in the message so far */
  private values = 0;

  constructor(
    limit: number,
    private readonly onFrame: FrameHandler,
    private readonly onTooLarge: (bytesSeen: number) => void,
  ) {
    super();
    this.message = new MessageBytes(limit);
  }

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
            this.values = 1;
            this.open(b === OPEN_BRACE ? IN_OBJECT : IN_ARRAY);
          } else if (!isSpace(b)) {
            this.onFrame({ kind: "malformed" }, 0);
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
          this.values++;
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
          if (numberNeedsDigit(this.state)) break;
          this.state = AFTER_VALUE;
          continue;
      }
      // `b` cannot continue the message: drop it, and say so once.
      if (this.tooLarge(this.message.size + (start === -1 ? 0 : i - start))) return;
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
    if (this.state >= VALUE) this.onFrame({ kind: "malformed" }, 0);
    this.reset();
    this.state = IDLE;
  }

  /** Closes the innermost container at `i`; true when that ended the message (and it was handed on). */
  private close(chunk: Uint8Array, start: number, i: number): boolean {
    this.depth--;
    if (this.depth > 0) {
      this.state = AFTER_VALUE;
      return false;
    }
    this.state = IDLE;
    const text = this.message.finish(chunk.subarray(start === -1 ? 0 : start, i + 1));
    if (text === undefined) this.tooLarge(this.message.size);
    else this.emit(text);
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
    if (!this.message.pastLimit(seen)) return false;
    this.stopped = true;
    this.onTooLarge(seen);
    return true;
  }

  private take(bytes: Uint8Array): void {
    if (!this.message.take(bytes)) this.tooLarge(this.message.size);
  }

  private emit(text: string): void {
    const values = this.values;
    this.reset();
    this.onFrame({ kind: "message", text }, values);
  }

  /** The message cannot be JSON: it is said once and forgotten; reading resumes where the caller says. */
  private drop(): void {
    this.reset();
    this.onFrame({ kind: "malformed" }, 0);
  }

  private reset(): void {
    this.message.clear();
    this.values = 0;
    this.depth = 0;
    this.state = IDLE;
    // a deep message's stack is not kept for the session's life
    if (this.stack.length > 4096) this.stack = new Uint8Array(64);
  }
}
