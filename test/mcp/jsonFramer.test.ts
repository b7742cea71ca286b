import { describe, expect, test } from "bun:test";
import { type Frame, JsonFramer } from "../../src/mcp/jsonFramer.ts";

/** The frames, and the size reported too large if any, for `chunks` pushed in turn under `limit`. */
function feed(limit: number, chunks: Uint8Array[]) {
  const out: Frame[] = [];
  let tooLarge: number | undefined;
  const f = new JsonFramer(
    limit,
    (fr) => out.push(fr),
    (n) => {
      tooLarge = n;
    },
  );
  for (const c of chunks) f.push(c);
  f.end();
  return { out, tooLarge };
}

function frames(limit: number, ...chunks: string[]) {
  return feed(
    limit,
    chunks.map((c) => Buffer.from(c)),
  );
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

/** The frames for a stream fed as `bytes`, cut into chunks at `cuts`. */
function framesOf(bytes: Uint8Array, cuts: number[] = [], limit = 1 << 20) {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(at, cut));
    at = cut;
  }
  return feed(limit, chunks);
}

const M = (text: string): Frame => ({ kind: "message", text });
const BAD: Frame = { kind: "malformed" };
const REQUEST = '{"jsonrpc":"2.0","id":7,"method":"ping"}';

describe("JsonFramer checks the syntax as it reads", () => {
  const broken: [string, string][] = [
    ["an unclosed object", '{"jsonrpc":"2.0","id":1'],
    ["an unclosed string", '{"jsonrpc":"2.0","id":"1'],
    ["a raw tab in a string", '{"a":"x\ty"}'],
    ["an escape that is none", '{"a":"\\x"}'],
    ["a short \\u escape", '{"a":"\\u12"}'],
    ["a \\u escape that is not hex", '{"a":"\\u12g4"}'],
    ["a trailing comma in an array", "[1,]"],
    ["a trailing comma in an object", '{"a":1,}'],
    ["a missing colon", '{"a" 1}'],
    ["a missing value", '{"a":}'],
    ["a key that is no string", "{a:1}"],
    ["a lone comma", "{,}"],
    ["two values without a comma", "[1 2]"],
    ["a leading zero", "[01]"],
    ["a bare minus", "[-]"],
    ["a dot with no digit", "[1.]"],
    ["an exponent with no digit", "[1e+]"],
    ["a plus sign", "[+1]"],
    ["a cut literal", "[tru]"],
    ["a misspelt literal", "[nul1]"],
    ["a capital literal", "[True]"],
    ["a brace closing a bracket", "[1}"],
    ["a bracket closing a brace", '{"a":1]'],
    ["a single-quoted string", "{'a':1}"],
    ["a comment", '{"a":1 /* x */}'],
    ["NaN", "[NaN]"],
    ["a top-level number", "42"],
    ["a top-level string", '"hello"'],
    ["words", "hello world"],
  ];
  for (const [what, text] of broken) {
    test(`${what}: one parse error, and the request on the next line is read`, () => {
      const { out, tooLarge } = framesOf(Buffer.from(`${text}\n${REQUEST}\n`));
      expect(out).toEqual([BAD, M(REQUEST)]);
      expect(tooLarge).toBeUndefined();
    });
  }

  test("bytes that are not UTF-8 inside a string are a bad byte", () => {
    for (const bad of [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x28], [0x80]]) {
      const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bad), Buffer.from(`"}\n${REQUEST}\n`)]);
      expect(framesOf(bytes).out).toEqual([BAD, M(REQUEST)]);
    }
    expect(framesOf(Buffer.from('{"a":"é€𝄞\u2028"}')).out).toEqual([M('{"a":"é€𝄞\u2028"}')]);
  });

  test("a bad byte that begins a line is read again as the start of the next message", () => {
    expect(framesOf(Buffer.from(`{"a":1\n${REQUEST}`)).out).toEqual([BAD, M(REQUEST)]);
    // indentation before it still counts as the start of the line
    expect(framesOf(Buffer.from(`{"a":1\n  \t${REQUEST}`)).out).toEqual([BAD, M(REQUEST)]);
    // one in the middle of a line skips to the next newline, and what follows on that line goes with it
    expect(framesOf(Buffer.from(`{"a":1 x ${REQUEST}\n${REQUEST}`)).out).toEqual([BAD, M(REQUEST)]);
    // a bad byte at the start of a line that starts no message is one more parse error
    expect(framesOf(Buffer.from(`{"a":1\n]\n${REQUEST}`)).out).toEqual([BAD, BAD, M(REQUEST)]);
  });

  test("a message may still span lines, and a value may begin a line", () => {
    const text = '{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "params": [\n{"x":\n[true, false, null, -0.5e+3]}\n]\n}';
    expect(framesOf(Buffer.from(text)).out).toEqual([M(text)]);
  });

  test("a text cut where a value must come takes the next line as that value (it is JSON that goes on)", () => {
    const out = framesOf(Buffer.from(`{"a":[\n${REQUEST}\n${REQUEST}\n`)).out;
    expect(out).toEqual([BAD, M(REQUEST)]);
  });

  test("cut into chunks anywhere, the stream gives the same frames", () => {
    const stream = Buffer.from(
      `{"a":"x\u00e9\\u00e9\\n"}\n{"b":[1,-2.5e3,true]\n{"c":"é€𝄞"}\r\nnope\n[{}, []]  {"d":"\n${REQUEST}\n`,
    );
    const whole = framesOf(stream).out;
    expect(whole).toEqual([M('{"a":"x\u00e9\\u00e9\\n"}'), BAD, M('{"c":"é€𝄞"}'), BAD, M("[{}, []]"), BAD, M(REQUEST)]);
    for (let cut = 1; cut < stream.length; cut++) expect(framesOf(stream, [cut]).out).toEqual(whole);
    const every = Array.from({ length: stream.length - 1 }, (_, i) => i + 1);
    expect(framesOf(stream, every).out).toEqual(whole);
  });

  test("it agrees with JSON.parse on thousands of mutated lines", () => {
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const alphabet = '{}[]":,\\ u0123456789abcdefnrtl.eE+-x\t\u00e9';
    const base = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { a: [1, -2.5e-3, true, null, "x\\y\u00e9"], b: {} },
    });
    for (let n = 0; n < 5000; n++) {
      const chars = [...base];
      for (let k = 1 + (next() % 3); k > 0; k--) {
        const at = next() % (chars.length + 1);
        const op = next() % 3;
        const ch = alphabet[next() % alphabet.length] as string;
        if (op === 0) chars.splice(at, 1);
        else if (op === 1) chars.splice(at, 0, ch);
        else chars.splice(at, 1, ch);
      }
      const line = chars.join("");
      let valid = false;
      try {
        const v = JSON.parse(line);
        valid = typeof v === "object" && v !== null;
      } catch {
        valid = false;
      }
      const out = framesOf(Buffer.from(line)).out;
      const one = out.length === 1 && out[0]?.kind === "message" && out[0].text === line.trim();
      expect({ line, one }).toEqual({ line, one: valid });
    }
  });

  test("a message that stays valid past the limit ends the stream; a broken one before it does not", () => {
    const big = `{"p":"${"x".repeat(200)}`;
    const broken = framesOf(Buffer.from(`${big.slice(0, 50)}\n${REQUEST}\n`), [], 100);
    expect(broken).toEqual({ out: [BAD, M(REQUEST)], tooLarge: undefined });
    // the bad byte comes only past the limit: the message was valid JSON that far
    const past = framesOf(Buffer.from(`${big}\n${REQUEST}\n`), [], 100);
    expect(past.out).toEqual([]);
    expect(past.tooLarge).toBeGreaterThan(100);
    // counted across lines and chunks
    const spread = framesOf(Buffer.from(`[\n${'"a",\n'.repeat(40)}`), [3, 50, 90], 100);
    expect(spread.tooLarge).toBeGreaterThan(100);
  });

  test("a deep message is read, and the depth costs no more than a byte a level", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(framesOf(Buffer.from(deep), [], 1 << 20).out).toEqual([M(deep)]);
    expect(framesOf(Buffer.from(`${"[".repeat(1000)}}\n${REQUEST}`)).out).toEqual([BAD, M(REQUEST)]);
  });
});

describe("JsonFramer counts a message's values as it reads it", () => {
  /** Each message handed on, with the values the framer counted in it. */
  function counted(chunks: Uint8Array[], limit = 1 << 20) {
    const out: [string, number][] = [];
    const f = new JsonFramer(
      limit,
      (fr, values) => {
        if (fr.kind === "message") out.push([fr.text, values]);
      },
      () => {},
    );
    for (const c of chunks) f.push(c);
    f.end();
    return out;
  }

  test("as holdsTooManyValues counts them: the message, and every member of every object and array", () => {
    const messages = [
      "{}",
      "[]",
      '{"a":1}',
      '[1,"two",true,null,-3.5e2]',
      '{"a":{"b":[{},[],"x"]},"c":[[[]]],"d":"{[,]}"}',
      REQUEST,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_read","arguments":{"path":"a\\"b"}}}',
    ];
    for (const m of messages) {
      const [[text, values]] = counted([Buffer.from(m)]) as [[string, number]];
      expect(text).toBe(m);
      let walked = 0;
      const walk = (v: unknown): void => {
        walked++;
        if (typeof v === "object" && v !== null) for (const x of Object.values(v)) walk(x);
      };
      walk(JSON.parse(m));
      expect(values).toBe(walked);
    }
  });

  test("across chunks and messages, and a key given twice counts twice", () => {
    const text = '{"a":[1,2,3],"a":{"b":4}}';
    const bytes = Buffer.from(`${text}\n[1,[2]]`);
    expect(counted([bytes.subarray(0, 9), bytes.subarray(9, 30), bytes.subarray(30)])).toEqual([
      [text, 7],
      ["[1,[2]]", 4],
    ]);
  });

  test("a message read where it lies is handed on before the stream may reuse its buffer", () => {
    // The first chunk ends one message and begins the next; it is overwritten before the next chunk comes.
    const chunk = Buffer.from(`${REQUEST}{"b":"`);
    const out: string[] = [];
    const f = new JsonFramer(
      1000,
      (fr) => {
        if (fr.kind === "message") out.push(fr.text);
      },
      () => {},
    );
    f.push(chunk);
    chunk.fill(0x78);
    f.push(Buffer.from('x"}'));
    expect(out).toEqual([REQUEST, '{"b":"x"}']);
  });

  test("a message past the limit in one chunk is refused whole, as one spread over chunks is", () => {
    const big = `{"p":"${"x".repeat(200)}"}`;
    const r = feed(100, [Buffer.from(`${big}\n${REQUEST}\n`)]);
    expect(r.out).toEqual([]);
    expect(r.tooLarge).toBe(big.length);
  });
});
