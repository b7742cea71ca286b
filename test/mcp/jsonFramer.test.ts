import { describe, expect, test } from "bun:test";
import { type Frame, JsonFramer } from "../../src/mcp/jsonFramer.ts";

function frames(limit: number, ...chunks: string[]) {
  const out: Frame[] = [];
  let tooLarge: number | undefined;
  const f = new JsonFramer(
    limit,
    (fr) => out.push(fr),
    (n) => {
      tooLarge = n;
    },
  );
  for (const c of chunks) f.push(Buffer.from(c));
  f.end();
  return { out, tooLarge };
}

describe("JsonFramer", () => {
  test("splits messages by structure, not by lines", () => {
    const { out } = frames(1000, '{"a":1}{"b":[1,', "2]}\n", '  {"c":\n"x"}\n[{"batch":true}]');
    expect(out).toEqual([
      { kind: "message", text: '{"a":1}' },
      { kind: "message", text: '{"b":[1,2]}' },
      { kind: "message", text: '{"c":\n"x"}' },
      { kind: "message", text: '[{"batch":true}]' },
    ]);
  });

  test("braces and escaped quotes inside strings do not end a message", () => {
    const { out } = frames(1000, '{"s":"}{\\"]["}', '{"t":"\\\\"}');
    expect(out).toEqual([
      { kind: "message", text: '{"s":"}{\\"]["}' },
      { kind: "message", text: '{"t":"\\\\"}' },
    ]);
  });

  test("multi-byte characters split across chunks come out whole", () => {
    const bytes = Buffer.from('{"e":"é🎉"}');
    const out: Frame[] = [];
    const f = new JsonFramer(
      1000,
      (fr) => out.push(fr),
      () => {},
    );
    for (const b of bytes) f.push(Uint8Array.of(b));
    expect(out).toEqual([{ kind: "message", text: '{"e":"é🎉"}' }]);
  });

  test("a line that cannot start a message is malformed, and the stream goes on", () => {
    const { out } = frames(1000, 'hello\n{"a":1}\n', "42\n");
    expect(out).toEqual([{ kind: "malformed" }, { kind: "message", text: '{"a":1}' }, { kind: "malformed" }]);
  });

  test("a message cut off by the end of the stream is malformed", () => {
    expect(frames(1000, '{"a":').out).toEqual([{ kind: "malformed" }]);
  });

  test("past the limit it reports once, holds nothing, and reads no further", () => {
    const { out, tooLarge } = frames(100, '{"a":1}', `{"big":"${"x".repeat(60)}`, "x".repeat(60), '"}{"after":1}');
    expect(out).toEqual([{ kind: "message", text: '{"a":1}' }]);
    expect(tooLarge).toBeGreaterThan(100);
  });

  test("spreading across lines counts every byte", () => {
    const { tooLarge } = frames(100, "[\n", '"a",\n'.repeat(30), '"b"]\n');
    expect(tooLarge).toBeGreaterThan(100);
  });

  test("a message of exactly the limit passes", () => {
    const msg = `{"p":"${"x".repeat(92)}"}`;
    expect(msg.length).toBe(100);
    const { out, tooLarge } = frames(100, msg);
    expect(tooLarge).toBeUndefined();
    expect(out).toHaveLength(1);
  });
});
