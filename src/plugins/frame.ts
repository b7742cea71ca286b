/**
 * The plugin protocol's framing: `Content-Length: N\r\n\r\n` and N bytes of
 * UTF-8 JSON, as LSP frames its messages, never a newline. The reader takes
 * the header, checks the declared length against the caller's bound before
 * a byte of the body is read, and then reads exactly N bytes: a plugin that
 * declares 100 MB is refused from its header, with nothing of it held.
 */

/** A header section longer than this is malformed. */
export const HEADER_MAX_BYTES = 1024;

const CRLF2 = Buffer.from("\r\n\r\n");

/**
 * The values one message may hold, every member of every object and array
 * counted: 100 times what the largest built-in answers (10,000 rows of a few
 * columns). Under the 8 MiB bound an answer of `[1],` rows holds 4 million,
 * which parsed took 270 MB of the server's memory for one call.
 */
export const MESSAGE_VALUE_LIMIT = 1_000_000;

/** Why a frame was not read: malformed, declared past the bound (with the length it declared), or the stream ended. */
export class FrameError extends Error {
  constructor(
    readonly kind: "malformed" | "toolarge" | "toomany" | "ended",
    message: string,
    /** for `toolarge`: the length the header declared */
    readonly declared = 0,
  ) {
    super(message);
  }
}

/** One JSON-RPC message as a frame's bytes. Refuses nothing. */
export function encodeFrame(message: unknown): Uint8Array {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const header = Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "latin1");
  return Buffer.concat([header, body]);
}

/**
 * Reads frames from a byte stream, one at a time; bytes past a frame are kept
 * for the next. Nothing is read ahead of what a frame asks for but what one
 * chunk of the stream brought.
 */
export class FrameReader {
  private readonly reader: { read(): Promise<{ value?: Uint8Array; done: boolean }>; cancel(): Promise<void> };
  /** bytes read and not yet part of a frame */
  private held: Buffer = Buffer.alloc(0);

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /**
   * The next frame's body, at most `bound` bytes. Refuses (FrameError) a
   * malformed header, one declaring more than `bound` (before the body is
   * read), and a stream that ends before the frame does.
   */
  async next(bound: number): Promise<Buffer> {
    const length = await this.header(bound);
    const body = Buffer.allocUnsafe(length);
    let have = Math.min(length, this.held.length);
    this.held.copy(body, 0, 0, have);
    this.held = this.held.subarray(have);
    while (have < length) {
      const chunk = await this.chunk();
      const take = Math.min(length - have, chunk.length);
      body.set(chunk.subarray(0, take), have);
      have += take;
      if (take < chunk.length) this.held = Buffer.from(chunk.subarray(take));
    }
    return body;
  }

  /** Stops reading; what is held is dropped. Refuses nothing. */
  cancel(): void {
    this.held = Buffer.alloc(0);
    this.reader.cancel().catch(() => {});
  }

  /** Reads to the end of a header section and returns the length it declares, checked against `bound`. */
  private async header(bound: number): Promise<number> {
    let end = this.held.indexOf(CRLF2);
    while (end < 0) {
      if (this.held.length >= HEADER_MAX_BYTES + CRLF2.length) break;
      const chunk = await this.chunk(this.held.length > 0);
      this.held = this.held.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.held, chunk]);
      end = this.held.indexOf(CRLF2);
      if (end < 0) linesSoFar(this.held);
    }
    if (end < 0 || end > HEADER_MAX_BYTES) throw malformed(`a header section longer than ${HEADER_MAX_BYTES} bytes`);
    const text = this.held.subarray(0, end).toString("latin1");
    this.held = this.held.subarray(end + CRLF2.length);
    const length = declaredLength(text);
    if (length > bound) {
      throw new FrameError("toolarge", `a message of ${length} bytes, past the bound of ${bound}`, length);
    }
    return length;
  }

  /** The next chunk of the stream; refuses one that ended (`inFrame`: in the middle of a frame). */
  private async chunk(inFrame = true): Promise<Uint8Array> {
    for (;;) {
      const { value, done } = await this.reader.read();
      if (done || value === undefined)
        throw new FrameError("ended", inFrame ? "the stream ended inside a message" : "the stream ended");
      if (value.length > 0) return value;
    }
  }
}

/**
 * Refuses at once a header section whose lines so far are not headers (a
 * message framed by a newline, JSON with no header): else the reader would
 * wait for the rest of a header that is never coming.
 */
function linesSoFar(held: Buffer): void {
  const text = held.subarray(0, Math.min(held.length, HEADER_MAX_BYTES + 4)).toString("latin1");
  const lines = text.split("\n");
  lines.pop(); // the line still arriving
  for (const line of lines) {
    if (!/^[A-Za-z][A-Za-z0-9-]*:/.test(line)) throw malformed("a header line that is not `Name: value`");
    if (!line.endsWith("\r")) throw malformed("a header line that does not end in CRLF");
  }
  const last = lines.length === 0 ? text : text.slice(text.lastIndexOf("\n") + 1);
  if (!/^(\r|[A-Za-z][A-Za-z0-9-]*(:.*)?)?$/s.test(last)) throw malformed("a header line that is not `Name: value`");
}

/** The Content-Length of a header section: given once, in decimal; no header but it and Content-Type. */
function declaredLength(text: string): number {
  let length: number | undefined;
  for (const line of text.split("\r\n")) {
    if (line.includes("\n")) throw malformed("a header line that does not end in CRLF");
    const colon = line.indexOf(":");
    if (colon <= 0) throw malformed("a header line that is not `Name: value`");
    const name = line.slice(0, colon).toLowerCase();
    // optional spaces and tabs around it, as HTTP lets be; any other byte (a bare LF, a no-break space) makes it no number
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (name === "content-type") continue;
    if (name !== "content-length") throw malformed(`a header other than Content-Length and Content-Type`);
    if (length !== undefined) throw malformed("Content-Length given twice");
    if (!/^[0-9]{1,15}$/.test(value)) throw malformed("a Content-Length that is not a decimal number");
    length = Number(value);
  }
  if (length === undefined) throw malformed("no Content-Length");
  return length;
}

function malformed(why: string): FrameError {
  return new FrameError("malformed", `a malformed frame: ${why}`);
}

/**
 * Whether the JSON text `body` holds more than `limit` values, counted
 * before it is parsed (an opening bracket or brace, or a comma, outside a
 * string, each starts one more): a message past it is refused without
 * building any of it. Refuses nothing.
 */
export function holdsPast(body: Uint8Array, limit = MESSAGE_VALUE_LIMIT): boolean {
  let count = 1;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash: the next byte is escaped
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if ((b === 0x2c || b === 0x5b || b === 0x7b) && ++count > limit) return true;
  }
  return false;
}
