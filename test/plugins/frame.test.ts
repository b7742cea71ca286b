import { describe, expect, test } from "bun:test";
import { encodeFrame, FrameError, FrameReader, holdsPast } from "../../src/plugins/frame.ts";

/** A stream of `chunks`, counting how many were pulled; then it ends, or (`endless`) it never does. */
function streamOf(chunks: (string | Uint8Array)[], endless = false) {
  const pulled = { count: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        const next = chunks[pulled.count];
        pulled.count++;
        if (next !== undefined) c.enqueue(typeof next === "string" ? Buffer.from(next, "latin1") : next);
        else if (!endless) c.close();
        else return new Promise(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled };
}

async function refusal(p: Promise<unknown>): Promise<FrameError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FrameError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("frames", () => {
  test("what the writer frames the reader reads back, across chunks of any size and frames in one chunk", async () => {
    const a = encodeFrame({ jsonrpc: "2.0", id: 1, result: "é😀" });
    const b = encodeFrame({ jsonrpc: "2.0", id: 2, result: [1, 2] });
    const both = Buffer.concat([a, b]);
    for (const size of [1, 3, 17, both.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < both.length; i += size) chunks.push(both.subarray(i, i + size));
      const reader = new FrameReader(streamOf(chunks).stream);
      expect(JSON.parse((await reader.next(1000)).toString())).toEqual({ jsonrpc: "2.0", id: 1, result: "é😀" });
      expect(JSON.parse((await reader.next(1000)).toString())).toEqual({ jsonrpc: "2.0", id: 2, result: [1, 2] });
      expect((await refusal(reader.next(1000))).kind).toBe("ended");
    }
  });

  test("the length is checked against the bound from the header, before a byte of the body is read", async () => {
    const { stream, pulled } = streamOf(["Content-Length: 104857600\r\n\r\n"], true);
    const err = await refusal(new FrameReader(stream).next(8 * 1024 * 1024));
    expect([err.kind, err.declared]).toEqual(["toolarge", 104857600]);
    expect(pulled.count).toBe(1);
  });

  test("a Content-Type header is let be; the name of a header is any case", async () => {
    const reader = new FrameReader(streamOf(["content-length: 2\r\nContent-Type: application/json\r\n\r\n{}"]).stream);
    expect((await reader.next(10)).toString()).toBe("{}");
  });

  const malformed: [string, string][] = [
    ["no length", "Content-Type: x\r\n\r\n{}"],
    ["a length that is no number", "Content-Length: 2x\r\n\r\n{}"],
    ["a negative length", "Content-Length: -2\r\n\r\n{}"],
    ["a length given twice", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"],
    ["another header", "Content-Length: 2\r\nX-Evil: 1\r\n\r\n{}"],
    ["a line that is no header", "{}\r\n\r\n"],
    ["a newline-framed message", '{"jsonrpc":"2.0"}\n'],
    ["a header section past 1 KiB", `Content-Length: 2\r\nContent-Type: ${"x".repeat(1100)}\r\n\r\n{}`],
    ["a length line ending in LF before its CRLF", "Content-Length: 2\n\r\n\r\n{}"],
    ["a length padded with a no-break space", "Content-Length: 2\u00a0\r\n\r\n{}"],
    ["a length led by a vertical tab", "Content-Length: \v2\r\n\r\n{}"],
    ["a bare LF inside a Content-Type", "Content-Type: a\nb\r\nContent-Length: 2\r\n\r\n{}"],
  ];
  for (const [what, bytes] of malformed) {
    test(`${what} is a malformed frame`, async () => {
      const err = await refusal(new FrameReader(streamOf([bytes], what.startsWith("a newline")).stream).next(100));
      expect(err.kind).toBe("malformed");
    });
  }

  test("a header section that never ends is refused once it passes 1 KiB, not read on", async () => {
    const { stream, pulled } = streamOf(
      Array.from({ length: 100 }, () => "x".repeat(100)),
      true,
    );
    expect((await refusal(new FrameReader(stream).next(100))).kind).toBe("malformed");
    expect(pulled.count).toBeLessThan(15);
  });

  test("a stream that ends inside a body says so", async () => {
    const err = await refusal(new FrameReader(streamOf(["Content-Length: 10\r\n\r\n{}"]).stream).next(100));
    expect([err.kind, err.message]).toEqual(["ended", "the stream ended inside a message"]);
  });
});

describe("the values a message holds", () => {
  test("are counted from its text: brackets, braces and commas outside strings, escaped quotes within them", () => {
    const body = (text: string) => Buffer.from(text);
    expect(holdsPast(body('{"a":[1,2,3]}'), 5)).toBe(false);
    expect(holdsPast(body('{"a":[1,2,3,4]}'), 5)).toBe(true);
    expect(holdsPast(body('{"a":"[,{,[,{,\\",[,{"}'), 2)).toBe(false);
  });
});
