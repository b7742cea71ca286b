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
 * numbers, no allocation per byte (a message's bytes are copied once per
 * chunk, and the container stack grows by doubling).
 */

/** What the framer hands on for each top-level value. */
export type Frame = { kind: "message"; text: string } | { kind: "malformed" };

import * as J from "./jsonGrammar.ts";
import { MessageBytes } from "./messageBytes.ts";

export class JsonFramer extends J.JsonScanner {
  private readonly message: MessageBytes;
  /** whether what came since the last newline, up to the end of the last chunk, is only indentation */
  private atLineStart = true;
  private stopped = false;

  constructor(
    limit: number,
    private readonly onFrame: (frame: Frame) => void,
    private readonly onTooLarge: (bytesSeen: number) => void,
  ) {
    super();
    this.message = new MessageBytes(limit);
  }

  /** Feeds the next chunk of the stream. After a message past the limit, it ignores everything. */
  push(chunk: Uint8Array): void {
    if (this.stopped) return;
    const n = chunk.length;
    let start = this.state >= J.VALUE ? 0 : -1; // where the current message's bytes begin in this chunk
    let i = 0;
    while (i < n && !this.stopped) {
      const b = chunk[i] as number;
      switch (this.state) {
        case J.IDLE:
          if (b === J.OPEN_BRACE || b === J.OPEN_BRACKET) {
            start = i;
            this.open(b === J.OPEN_BRACE ? J.IN_OBJECT : J.IN_ARRAY);
          } else if (!J.isSpace(b)) {
            this.onFrame({ kind: "malformed" });
            this.state = J.JUNK;
          }
          i++;
          continue;
        case J.JUNK: {
          const nl = chunk.indexOf(J.NEWLINE, i);
          if (nl === -1) i = n;
          else {
            this.state = J.IDLE;
            i = nl + 1;
          }
          continue;
        }
        case J.STRING: {
          // The bulk of any message: plain ASCII runs straight through.
          while (i < n) {
            const c = chunk[i] as number;
            if (c < J.SPACE || c === J.QUOTE || c === J.BACKSLASH || c >= 0x80) break;
            i++;
          }
          if (i === n) continue;
          const c = chunk[i] as number;
          if (c === J.QUOTE) this.state = this.key ? J.AFTER_KEY : J.AFTER_VALUE;
          else if (c === J.BACKSLASH) this.state = J.ESCAPE;
          else if (c >= 0x80 && this.utf8Lead(c)) this.state = J.UTF8;
          else break;
          i++;
          continue;
        }
        case J.ESCAPE:
          if (b === 0x75) {
            this.state = J.UNICODE;
            this.pending = 4;
          } else if (J.isEscape(b)) this.state = J.STRING;
          else break;
          i++;
          continue;
        case J.UNICODE:
          if (!J.isHex(b)) break;
          if (--this.pending === 0) this.state = J.STRING;
          i++;
          continue;
        case J.UTF8:
          if (b < this.lo || b > this.hi) break;
          this.lo = 0x80;
          this.hi = 0xbf;
          if (--this.pending === 0) this.state = J.STRING;
          i++;
          continue;
        case J.LITERAL:
          if (b !== this.literal[this.pending]) break;
          if (++this.pending === this.literal.length) this.state = J.AFTER_VALUE;
          i++;
          continue;
        case J.VALUE:
        case J.ARRAY_FIRST:
          if (J.isSpace(b)) {
            i++;
            continue;
          }
          if (b === J.CLOSE_BRACKET && this.state === J.ARRAY_FIRST) {
            if (this.close(chunk, start, i)) start = -1;
            i++;
            continue;
          }
          if (!this.startValue(b)) break;
          i++;
          continue;
        case J.OBJECT_FIRST:
        case J.KEY:
          if (J.isSpace(b)) {
            i++;
            continue;
          }
          if (b === J.QUOTE) {
            this.state = J.STRING;
            this.key = true;
          } else if (b === J.CLOSE_BRACE && this.state === J.OBJECT_FIRST) {
            if (this.close(chunk, start, i)) start = -1;
          } else break;
          i++;
          continue;
        case J.AFTER_KEY:
          if (b === J.COLON) this.state = J.VALUE;
          else if (!J.isSpace(b)) break;
          i++;
          continue;
        case J.AFTER_VALUE: {
          if (J.isSpace(b)) {
            i++;
            continue;
          }
          const inObject = this.stack[this.depth - 1] === J.IN_OBJECT;
          if (b === J.COMMA) this.state = inObject ? J.KEY : J.VALUE;
          else if (b === (inObject ? J.CLOSE_BRACE : J.CLOSE_BRACKET)) {
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
          if (J.numberNeedsDigit(this.state)) break;
          this.state = J.AFTER_VALUE;
          continue;
      }
      // `b` cannot continue the message: drop it, and say so once.
      if (this.tooLarge(this.message.size + (start === -1 ? 0 : i - start))) return;
      this.drop();
      if (b === J.NEWLINE) i++;
      else if (!this.beginsLine(chunk, i)) this.state = J.JUNK;
      start = -1;
    }
    if (this.stopped) return;
    if (this.state >= J.VALUE && start !== -1) this.take(chunk.subarray(start));
    this.atLineStart = this.endsAtLineStart(chunk);
  }

  /** The stream ended: a message cut off in the middle is malformed. */
  end(): void {
    if (this.stopped) return;
    if (this.state >= J.VALUE) this.onFrame({ kind: "malformed" });
    this.reset();
    this.state = J.IDLE;
  }

  /** Closes the innermost container at `i`; true when that ended the message (and it was handed on). */
  private close(chunk: Uint8Array, start: number, i: number): boolean {
    this.depth--;
    if (this.depth > 0) {
      this.state = J.AFTER_VALUE;
      return false;
    }
    this.state = J.IDLE;
    this.take(chunk.subarray(start === -1 ? 0 : start, i + 1));
    if (!this.stopped) this.emit();
    return true;
  }

  /** Whether the byte at `i` begins a line: only spaces or tabs stand between it and a newline (or the stream's start). */
  private beginsLine(chunk: Uint8Array, i: number): boolean {
    let j = i - 1;
    while (j >= 0 && (chunk[j] === J.SPACE || chunk[j] === J.TAB)) j--;
    return j >= 0 ? chunk[j] === J.NEWLINE : this.atLineStart;
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

  private emit(): void {
    const text = this.message.text();
    this.reset();
    this.onFrame({ kind: "message", text });
  }

  /** The message cannot be JSON: it is said once and forgotten; reading resumes where the caller says. */
  private drop(): void {
    this.reset();
    this.onFrame({ kind: "malformed" });
  }

  private reset(): void {
    this.message.clear();
    this.depth = 0;
    this.state = J.IDLE;
    // a deep message's stack is not kept for the session's life
    if (this.stack.length > 4096) this.stack = new Uint8Array(64);
  }
}
