/**
 * A fuzz stream for the stdio framing test: lines of malformed and valid MCP
 * messages mixed, from a fixed seed, with the ids of the valid requests.
 *
 * A line cut where a value must come (after ':', ',' or '[') is not among the
 * malformed lines: that is JSON that goes on, and the next line is its value,
 * as a message spread across lines must be read (the framer's unit tests show
 * it). Every other way of being broken is.
 */
import type { Era } from "./mcpClient.ts";

export const LINES = 10_000;
export const SEED = 0x5eed_f00d;

/** mulberry32: a small PRNG, so the stream is the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Whether a text cut here leaves a value to come: outside a string, its last non-space byte is ':', ',' or '['. */
function valueToCome(prefix: string): boolean {
  let inString = false;
  let escaped = false;
  let last = "";
  for (const ch of prefix) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      last = "s";
      continue;
    }
    if (ch === '"') inString = true;
    if (!/\s/.test(ch)) last = ch;
  }
  return !inString && (last === ":" || last === "," || last === "[");
}

export interface Fuzz {
  bytes: Uint8Array;
  /** the ids of the valid requests, each to be answered once */
  expected: Set<string | number>;
  malformed: number;
}

export function fuzz(era: Era, seed: number): Fuzz {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const int = (n: number) => Math.floor(rand() * n);
  const params = (p: Record<string, unknown>) => (era === "modern" ? { ...p, _meta: META } : p);
  const request = (id: string | number) => {
    const r = rand();
    if (r < 0.45) return { jsonrpc: "2.0", id, method: "ping", ...(era === "modern" ? { params: params({}) } : {}) };
    if (r < 0.99)
      return {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: params({ name: "jwt_decode", arguments: { token: `t.${int(1e6)}` } }),
      };
    return { jsonrpc: "2.0", id, method: "tools/list", params: params({}) };
  };
  const chunks: Buffer[] = [];
  const line = (text: string | Buffer) => chunks.push(typeof text === "string" ? Buffer.from(`${text}\n`) : text);
  const expected = new Set<string | number>();
  let malformed = 0;
  let n = 0;
  const validId = () => {
    const id = rand() < 0.5 ? ++n : `ok-${++n}`;
    expected.add(id);
    return id;
  };
  const badRequest = () => JSON.stringify(request(`bad-${++n}`));
  const junkAlphabet = "abcxyz019 .,:;'\"{}[]\\/-+#\t\u00e9€";

  if (era === "legacy") {
    line(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
      }),
    );
    line(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expected.add("init");
  }
  for (let k = 0; k < LINES; k++) {
    if (rand() < 0.3) {
      const shape = rand();
      if (shape < 0.8) line(JSON.stringify(request(validId())));
      else if (shape < 0.9)
        line(JSON.stringify(request(validId()), null, 2)); // across lines, indented
      else if (shape < 0.95) line(JSON.stringify(request(validId())) + JSON.stringify(request(validId())));
      else {
        // a valid message with junk after it on its line: the message is read, the junk is one parse error
        line(`${JSON.stringify(request(validId()))} trailing junk`);
        malformed++;
      }
      continue;
    }
    malformed++;
    const kind = int(12);
    switch (kind) {
      case 0: {
        // cut off anywhere but where a value must come
        const text = badRequest();
        let cut = 1 + int(text.length - 1);
        while (valueToCome(text.slice(0, cut))) cut--;
        line(text.slice(0, cut));
        break;
      }
      case 1: {
        // a string left open: the newline inside it is the bad byte
        const text = badRequest();
        line(text.slice(0, text.indexOf('"method":"') + 10 + int(3)));
        break;
      }
      case 2: {
        // mutated past its first byte, with a control character at the end so it cannot run on into the next line
        const chars = [...badRequest()];
        for (let m = 1 + int(3); m > 0; m--)
          chars.splice(1 + int(chars.length - 1), int(2), pick(junkAlphabet.split("")));
        line(`${chars.join("")}${String.fromCharCode(1 + int(8))}`);
        break;
      }
      case 3: {
        const len = 1 + int(rand() < 0.01 ? 100_000 : 80);
        let junk = pick("abcxyz#'!".split(""));
        for (let c = 1; c < len; c++) junk += pick(junkAlphabet.split(""));
        line(junk);
        break;
      }
      case 4: {
        const bad = pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xe2, 0x28]]);
        const text = badRequest();
        const at = text.indexOf('"jsonrpc"') + 2;
        line(Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bad), Buffer.from(`${text.slice(at)}\n`)]));
        break;
      }
      case 5:
        line(badRequest().replace('"2.0"', `"2.${pick(["\t", "\r", "\u0000", "\u001b"])}0"`));
        break;
      case 6:
        line(pick(['{"foo":1}', "[]", "[1,2]", '{"jsonrpc":"2.0","id":"bad-x"}', "{}", '{"jsonrpc":"1.0"}']));
        break;
      case 7:
        line(pick(['{"jsonrpc":"2.0","id":"bad-y","params":{"a":1', "[[[[1", '{"a":{"b":{"c":"d"}', '{"a":1\r']));
        break;
      case 8:
        line(pick(['{"a":1]', "[1}", '{"a" 1}', "{a:1}", "[01]", "[1.]", "[-]", "[tru]", "[NaN]", '{"a":1,}']));
        break;
      case 9:
        // not ',': at the start of a line it would go on with a message left open on the line before
        line(pick(["42", '"str"', "true", "null", "-1", "}", "]", ":"]));
        break;
      case 10:
        line(badRequest().replace('"method":"', '"method":"\\q'));
        break;
      default:
        line(`x ${badRequest()}`); // junk before a message on its line takes the message with it
    }
  }
  const last = validId();
  line(JSON.stringify(request(last)));
  return { bytes: Buffer.concat(chunks), expected, malformed };
}
