/**
 * fs.read: a text file, by byte range or by line range. It reads only what it
 * returns (1 MiB by default), so a 100 MB file costs what the answer costs.
 * Binary is detected and refused with a hint.
 */
import { isAscii, isUtf8 } from "node:buffer";
import type { FileBytes } from "../../core/access.ts";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { insideKey, KEY_OPEN } from "../../core/privateKeys.ts";
import { text } from "../../core/result.ts";
import { cutsACredential, LINE_CONTEXT_CHARS, LinesBefore, openCredential } from "../../core/secrets.ts";
import { looksBinary, notFile } from "./entryKind.ts";
import { HEAD_LINES, headShown, readLines } from "./lineRange.ts";
import { readOnce } from "./readOnce.ts";

const MiB = 1024 * 1024;
/** What one read returns at most: more than a model can use, and the answer is bounded anyway. */
const DEFAULT_LENGTH = MiB;

const PSEUDO_MAX_BYTES = 8 * 1024 * 1024;

export const fsRead = define({
  name: "fs.read",
  summary: "Read a text file, whole or by byte or line range",
  agentText:
    "Give offset and length for bytes, or from_line and lines for lines (the first line is 1). The answer ends on a line saying what was left out and how to read on.",
  searchWords: ["cat", "open file", "view file", "head", "contents"],
  safety: "read",
  inputs: {
    path: { type: "string", description: "the file", required: true, path: "read", positional: true },
    offset: { type: "integer", description: "the first byte to read", range: [0, Number.MAX_SAFE_INTEGER] },
    length: {
      type: "integer",
      description: "how many bytes to read at most",
      range: [1, 8 * MiB],
      default: DEFAULT_LENGTH,
    },
    from_line: { type: "integer", description: "the first line to read, from 1", range: [1, Number.MAX_SAFE_INTEGER] },
    lines: { type: "integer", description: "how many lines to read", range: [1, 1_000_000] },
  },
  result: { shape: "text" },
  examples: [
    { command: "rta fs read README.md", note: "the whole file, up to 1 MiB" },
    { command: "rta fs read README.md --from-line 10 --lines 5", note: "lines 10 to 14" },
  ],
  async run(args, ctx) {
    const p = readOnce(ctx.paths.path);
    if (!p.stat.isFile()) throw notFile(p.sent);
    // a file the kernel makes as it is read (/proc, /sys) says it is empty: its size is what a read finds
    const size = p.stat.size > 0 ? p.stat.size : p.read(0, PSEUDO_MAX_BYTES).length;
    if (size > 0 && looksBinary(p.read(0, Math.min(8192, size)))) {
      throw new RtaError(
        "fs.binary",
        `${JSON.stringify(p.sent)} holds binary data`,
        "fs.stat and fs.hash describe it without reading it as text",
      );
    }
    const length = args.length;
    if (args.from_line !== undefined || args.lines !== undefined) {
      const read = await readLines(
        ctx.signal,
        p.sent,
        p,
        size,
        args.from_line ?? 1,
        args.lines ?? Number.MAX_SAFE_INTEGER,
        length,
        ctx.shown,
      );
      return read.endsLine
        ? { ...text(read.text, read.note, read.short), endsLine: true }
        : text(read.text, read.note, read.short);
    }
    const asked = args.offset ?? 0;
    const { offset, body } = onWholePlaces(
      p,
      onWholeCredentials(p, asked, p.read(asked, Math.min(length, Math.max(0, size - asked))), size),
      size,
      ctx.shown,
    );
    const end = offset + body.length;
    // a credential's value may start the range with its name on a line above: masked with the lines before it
    // ASCII, as most text is, reads the same as UTF-8, and is made a string at a third of the cost
    const ascii = isAscii(body);
    const read = body.toString(ascii ? "ascii" : "utf8");
    const out = ctx.shown ? headShown(read, linesBefore(p, offset), ctx.shown) : read;
    const notes: string[] = [];
    if (offset < asked)
      notes.push(
        `[read from offset=${offset}: the range cut through a credential or a hidden place, so it was widened to whole lines]`,
      );
    if (end < size) notes.push(`[${size - end} more bytes: read on with offset=${end}]`);
    // A length left at its default was not chosen: stopping there is a cut, where `--length 100` is head -c 100.
    const cut = end < size && length === DEFAULT_LENGTH;
    return text(out, notes.join("\n"), !ascii && !isUtf8(body) ? "replaced" : cut ? "cut" : undefined);
  },
});

/**
 * How far past a byte range's edges its lines are looked at, and widened to:
 * more than a long bearer token or a SAML assertion on one line, and cheap to
 * read twice per call.
 */
const EDGE_BYTES = 64 * 1024;

/**
 * A byte range that starts or ends inside a credential (`ation: Bearer ...`,
 * `https://user:pass` before its `@`) is widened to the whole lines it cuts,
 * at most EDGE_BYTES each way: masking sees a credential only whole, and a
 * caller could otherwise read one past the mask in two halves.
 */
function onWholeCredentials(
  file: FileBytes,
  offset: number,
  body: Buffer,
  size: number,
): { offset: number; body: Buffer } {
  const end = offset + body.length;
  const { before, lead, trail } = edges(file, offset, end, size);
  // a range that is whole lines at both ends (the whole file, most often) cuts nothing
  if (lead.length === 0 && trail.length === 0) return { offset, body };
  // a credential's name on a line above the lead's, its value on the lead's line: the lead is cut from it too
  const above = lead.length > 0 ? openCredential(linesIn(before.subarray(0, before.length - lead.length))) : "";
  // Only the lines at the edges can be cut: the first three not blank (a name, its `=` alone, the value; blank lines
  // between) and the last two.
  const second = endOfLines(body, HEAD_LINES);
  const penultimate = body.lastIndexOf(0x0a, body.lastIndexOf(0x0a) - 1);
  const head = second < 0 ? body : body.subarray(0, second);
  const tail = penultimate < 0 ? body : body.subarray(penultimate + 1);
  const led = above + lead.toString("utf8");
  const cut =
    cutsACredential(led, head.toString("utf8"), second < 0 ? trail.toString("utf8") : "") ||
    cutsACredential(penultimate < 0 ? led : "", tail.toString("utf8"), trail.toString("utf8"));
  if (!cut) return { offset, body };
  const start = offset - lead.length;
  return { offset: start, body: file.read(start, end + trail.length - start) };
}

/**
 * Around bytes [offset, end): `before`, up to EDGE_BYTES ahead of them; `lead`, the part of their first line in it;
 * `trail`, the rest of their last line after them, up to EDGE_BYTES.
 */
function edges(file: FileBytes, offset: number, end: number, size: number) {
  // a range from the file's start has nothing before it, and one to its end nothing after: neither is read
  const before = offset > 0 ? file.read(Math.max(0, offset - EDGE_BYTES), Math.min(offset, EDGE_BYTES)) : NOTHING;
  const after = end < size ? file.read(end, Math.min(EDGE_BYTES, size - end)) : NOTHING;
  const newline = after.indexOf(0x0a);
  const trail = newline < 0 ? after : after.subarray(0, newline);
  return { before, lead: before.subarray(before.lastIndexOf(0x0a) + 1), trail };
}

/**
 * A byte range whose first or last line, read whole, the caller is shown
 * otherwise than it reads (a path of rta's own, a remote server's root) is
 * widened to that whole line, at most EDGE_BYTES: a place is renamed only
 * whole, and a range starting or ending inside it would show the rest of it
 * (`offset` past `/var/li` reads `b/rta/...`), a piece at a time.
 */
function onWholePlaces(
  file: FileBytes,
  range: { offset: number; body: Buffer },
  size: number,
  shown: ((text: string) => string) | undefined,
): { offset: number; body: Buffer } {
  if (shown === undefined || range.body.length === 0) return range;
  const changed = (line: Buffer) => {
    const t = line.toString("utf8");
    return shown(t) !== t;
  };
  let { offset } = range;
  let end = offset + range.body.length;
  const { lead, trail } = edges(file, offset, end, size);
  if (lead.length === 0 && trail.length === 0) return range;
  const first = range.body.indexOf(0x0a);
  const last = range.body.lastIndexOf(0x0a);
  const head = first < 0 ? Buffer.concat([range.body, trail]) : range.body.subarray(0, first);
  const tail = last < 0 ? Buffer.concat([lead, range.body]) : range.body.subarray(last + 1);
  if (lead.length > 0 && changed(Buffer.concat([lead, head]))) offset -= lead.length;
  if (trail.length > 0 && changed(Buffer.concat([tail, trail]))) end += trail.length;
  if (offset === range.offset && end === range.offset + range.body.length) return range;
  return { offset, body: file.read(offset, end - offset) };
}

/** Where the newline that ends the `n`th line of `body` holding more than whitespace stands; -1 when there are fewer. */
function endOfLines(body: Buffer, n: number): number {
  let found = 0;
  for (let start = 0; start < body.length; ) {
    const nl = body.indexOf(0x0a, start);
    if (nl < 0) return -1;
    if (body.subarray(start, nl).some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d) && ++found === n) return nl;
    start = nl + 1;
  }
  return -1;
}

/**
 * The lines before byte `offset` that masking what follows depends on (see
 * LinesBefore), read from at most CONTEXT_BYTES back.
 */
function linesBefore(file: FileBytes, offset: number): string {
  if (offset === 0) {
    linesBeforeStart ??= linesIn(NOTHING);
    return linesBeforeStart;
  }
  return linesIn(file.read(Math.max(0, offset - EDGE_BYTES), Math.min(offset, EDGE_BYTES)));
}

/** What linesIn makes of no bytes: the lines before a range from a file's start, the same at every call. */
let linesBeforeStart: string | undefined;

/** No bytes: what lies before a range from a file's start, or after one to its end. */
const NOTHING = Buffer.alloc(0);

/**
 * The lines ending `bytes` that masking what follows them depends on (see
 * LinesBefore): CONTEXT_BYTES back from the whitespace that ends them, which
 * may be long.
 */
function linesIn(bytes: Buffer): string {
  const before = new LinesBefore();
  let end = bytes.length;
  while (end > 0 && WHITESPACE.has(bytes[end - 1] as number)) end--;
  const from = Math.max(0, end - CONTEXT_BYTES);
  // A private key is many lines (some 50 for RSA 4096): its BEGIN may stand further back than the lines kept (or
  // across where they start), and whether one is open is asked of all that was read, or a range from its middle
  // would be shown as no key.
  const read = from > 0 ? bytes.toString("latin1", 0, end) : "";
  if (insideKey(read)) before.add(KEY_OPEN.trimEnd());
  for (const line of bytes.toString("utf8", from).split("\n")) before.add(line);
  return before.text();
}

/** Space, tab, newline, vertical tab, form feed, carriage return. */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

/** How far back before a range its lines are read for what masking it depends on: two lines' ends and the blanks between. */
const CONTEXT_BYTES = 4 * LINE_CONTEXT_CHARS;
