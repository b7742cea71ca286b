/**
 * The plugin protocol's framing, as the note plugin speaks it: each message
 * `Content-Length: N\r\n\r\n` and N bytes of UTF-8 JSON, never a newline
 * between messages. Small on purpose: a plugin needs only to read one
 * request at a time and write one answer at a time.
 */

const HEADER_END = Buffer.from("\r\n\r\n");
/** A header section longer than this is no frame rta sends. */
const MAX_HEADER = 1024;

/** Splits a byte stream into message bodies as they complete; refuses (throws) a malformed header. */
export class FrameReader {
  private held = Buffer.alloc(0);

  /** Takes more bytes and returns every body they complete, in order. */
  push(chunk: Uint8Array): string[] {
    this.held = this.held.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.held, chunk]);
    const bodies: string[] = [];
    for (;;) {
      const end = this.held.indexOf(HEADER_END);
      if (end < 0) {
        if (this.held.length > MAX_HEADER) throw new Error("a header section over 1 KiB");
        return bodies;
      }
      const length = contentLength(this.held.subarray(0, end).toString("latin1"));
      const start = end + HEADER_END.length;
      if (this.held.length < start + length) return bodies;
      bodies.push(this.held.subarray(start, start + length).toString("utf8"));
      this.held = this.held.subarray(start + length);
    }
  }
}

function contentLength(header: string): number {
  let length: number | undefined;
  for (const line of header.split("\r\n")) {
    const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (!m) throw new Error("a malformed header line");
    const name = (m[1] as string).toLowerCase();
    if (name === "content-length" && /^\d{1,10}$/.test(m[2] as string)) length = Number(m[2]);
    else if (name !== "content-type") throw new Error(`an unexpected header ${name}`);
  }
  if (length === undefined) throw new Error("no Content-Length");
  return length;
}

/** One message as framed bytes. */
export function frame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "latin1"), body]);
}
