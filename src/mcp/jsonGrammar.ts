/**
 * The JSON grammar (RFC 8259) as the stdio framer reads it, one byte at a
 * time: the bytes that matter, the states a scanner can be in, and the steps
 * of the parts that need more than one byte (numbers, escapes, UTF-8,
 * literals). Nothing here holds a message or knows of a limit: that is
 * jsonFramer.ts, which extends JsonScanner with them. It runs on every byte
 * of every call: no allocation per byte, and the steps are methods on the
 * scanner's own fields (a step taking and returning its state measured 10 to
 * 15% slower from source).
 */

export const TAB = 0x09;
export const NEWLINE = 0x0a;
export const RETURN = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const ZERO = 0x30;
export const NINE = 0x39;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const DOT = 0x2e;

// Where the scanner is. Between messages it is IDLE or JUNK; inside one (from VALUE on), the rest.
export const IDLE = 0; // whitespace, or '{' / '[' opening a message
export const JUNK = 1; // after a bad byte: skipping to the next newline
export const VALUE = 2; // a value must come (after ':', or ',' in an array)
export const ARRAY_FIRST = 3; // after '[': a value or ']'
export const OBJECT_FIRST = 4; // after '{': a key or '}'
export const KEY = 5; // after ',' in an object: a key
export const AFTER_KEY = 6; // a ':'
export const AFTER_VALUE = 7; // ',' or the close of the container
export const STRING = 8;
export const ESCAPE = 9; // after '\'
export const UNICODE = 10; // in \uXXXX: `pending` hex digits to go
export const UTF8 = 11; // in a multi-byte character: `pending` continuation bytes to go, the next in lo..hi
export const NUM_MINUS = 12; // '-': a digit must come
export const NUM_ZERO = 13; // a leading 0: '.', 'e' or the end
export const NUM_INT = 14;
export const NUM_DOT = 15; // '.': a digit must come
export const NUM_FRAC = 16;
export const NUM_EXP = 17; // 'e': a sign or a digit
export const NUM_EXP_SIGN = 18; // a digit must come
export const NUM_EXP_DIGITS = 19;
export const LITERAL = 20; // in true, false or null: the rest of `literal` from `pending`

/** What a container on the scanner's stack is. */
export const IN_OBJECT = 1;
export const IN_ARRAY = 0;

const TRUE = new TextEncoder().encode("true");
const FALSE = new TextEncoder().encode("false");
const NULL = new TextEncoder().encode("null");

/** The literal a value starting with `b` must be (true, false or null); undefined when none starts so. */
function literalFor(b: number): Uint8Array | undefined {
  return b === TRUE[0] ? TRUE : b === FALSE[0] ? FALSE : b === NULL[0] ? NULL : undefined;
}

/** Whether `b` is JSON whitespace (space, newline, return, tab); any other byte is not. */
export function isSpace(b: number): boolean {
  return b === SPACE || b === NEWLINE || b === RETURN || b === TAB;
}

/** Whether `b` is a hex digit of a \uXXXX escape, in either case; nothing else is. */
export function isHex(b: number): boolean {
  return (b >= ZERO && b <= NINE) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

/** Whether `b` may follow '\' in a string: " \ / b f n r t (u is handled apart); any other byte may not. */
export function isEscape(b: number): boolean {
  return (
    b === QUOTE || b === BACKSLASH || b === 0x2f || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74
  );
}

/** Whether a number in this state is cut short (a digit must come), so that any other byte is bad, not its end. */
export function numberNeedsDigit(state: number): boolean {
  return state === NUM_MINUS || state === NUM_DOT || state === NUM_EXP || state === NUM_EXP_SIGN;
}

/**
 * Where a scanner is in the grammar, and its steps inside a value: opening a
 * container, the first byte of a value, a number, a UTF-8 lead. What a
 * message is, and what to do at its end or at a bad byte, is the framer's.
 */
export class JsonScanner {
  protected state = IDLE;
  /** open containers, innermost last: IN_OBJECT or IN_ARRAY */
  protected stack = new Uint8Array(64);
  protected depth = 0;
  /** whether the string being read is an object's key */
  protected key = false;
  /** digits, bytes or letters still to come in UNICODE, UTF8 or LITERAL */
  protected pending = 0;
  protected lo = 0;
  protected hi = 0;
  protected literal: Uint8Array = new Uint8Array(0);

  protected open(kind: number): void {
    if (this.depth === this.stack.length) {
      const grown = new Uint8Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.depth++] = kind;
    this.state = kind === IN_OBJECT ? OBJECT_FIRST : ARRAY_FIRST;
  }

  /** The first byte of a value; false when no value starts with it. */
  protected startValue(b: number): boolean {
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

  protected number(b: number): boolean {
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
  protected utf8Lead(b: number): boolean {
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
}
