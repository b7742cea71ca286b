/**
 * fs.read by lines: a range of lines read chunk by chunk, holding only those
 * lines, and the start of a text shown as it reads after what stands before
 * it (for an agent, whose text is masked).
 */

import { isUtf8 } from "node:buffer";
import { StringDecoder } from "node:string_decoder";
import type { FileBytes } from "../../core/access.ts";
import { RtaError } from "../../core/errors.ts";
import { ARMOUR_END, insideKey, keyOpenAfter } from "../../core/privateKeys.ts";
import type { TextResult } from "../../core/result.ts";
import { LINE_CONTEXT_CHARS, LinesBefore, lineEnd, openCredential } from "../../core/secrets.ts";

/** How much is read at a time while lines are counted. */
const CHUNK = 64 * 1024;

/**
 * A text read from the middle of a file, with its start shown as it reads
 * after `before` (see RunContext.shown). Only the start depends on what stands
 * before it: its first HEAD_LINES lines not blank, or, inside a private key,
 * up to the key's end. The rest is masked as one text with the result (stage
 * 13), so a large read is not masked twice over.
 */
export function headShown(text: string, before: string, shown: (text: string, before?: string) => string): string {
  let end = endOfTextLines(text, HEAD_LINES);
  if (before.includes(ARMOUR_END)) {
    const armour = text.indexOf(ARMOUR_END);
    end = armour < 0 ? text.length : Math.max(end, armour + ARMOUR_END.length);
  }
  // A head that ends inside a private key, or with a credential's name, takes in the lines up to the key's end or
  // the name's value: a head that cannot be told from its context is masked whole (one begun inside a key), and
  // what follows it would be masked with no armour or name before it. Each line is looked at once.
  let inKey = keyOpenAfter(insideKey(before), text.slice(0, end));
  while (end < text.length && (inKey || openCredential(text.slice(0, end)) !== "")) {
    const next = endOfTextLines(text, 1, end + 1);
    inKey = keyOpenAfter(inKey, text.slice(end, next));
    end = next;
  }
  return end >= text.length ? shown(text, before) : shown(text.slice(0, end), before) + text.slice(end);
}

/**
 * Where the `n`th line of `text` from `from` (a line's start) holding more than whitespace ends (its newline's
 * index), or the text's end.
 */
function endOfTextLines(text: string, n: number, from = 0): number {
  let found = 0;
  for (let start = from; start < text.length; ) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) return text.length;
    if (/\S/.test(text.slice(start, nl)) && ++found === n) return nl;
    start = nl + 1;
  }
  return text.length;
}

/** How many lines, not counting blank ones, a cut at a range's start can reach: a name, its `:` or `=` alone, the value. */
export const HEAD_LINES = 3;

/**
 * Lines `from`..`from+count-1`, reading chunk by chunk and holding only those
 * lines (at most `budget` bytes). A line before them is counted, never held,
 * however long it is; between chunks the server goes on answering others.
 * With `shown` (an agent), the lines are shown as it makes them, given the
 * ends of the lines before them (see LinesBefore).
 */
export async function readLines(
  signal: AbortSignal,
  sent: string,
  file: FileBytes,
  size: number,
  from: number,
  count: number,
  budget: number,
  shown?: (text: string, before?: string) => string,
): Promise<LinesRead> {
  let line = 1;
  let pos = 0;
  let carry = "";
  const kept: string[] = [];
  let keptBytes = 0;
  const before = new LinesBefore();
  const lines = () => (shown ? headShown(kept.join("\n"), before.text(), shown) : kept.join("\n"));
  // A character split between two chunks is decoded whole. A line kept is checked against its own bytes when it
  // shows U+FFFD, so a byte that is not UTF-8 is told from the character itself, and one in a line not kept is not
  // counted; a line's bytes are split out beside its text (0x0a is never part of another character, even a broken one).
  const decoder = new StringDecoder("utf8");
  let rawCarry = NOTHING;
  let replaced = false;
  const check = (text: string, bytes: Buffer | undefined) => {
    if (!replaced && text.includes("\ufffd") && bytes !== undefined && !isUtf8(bytes)) replaced = true;
  };
  // the last line kept ran to the end of a file with no newline after it
  let open = false;
  const done = (note?: string, cut?: boolean): LinesRead => ({
    text: lines(),
    ...(kept.length > 0 && !open ? { endsLine: true } : {}),
    ...(note === undefined ? {} : { note }),
    ...(replaced ? { short: "replaced" } : cut ? { short: "cut" } : {}),
  });
  while (pos < size) {
    const chunk = file.read(pos, Math.min(CHUNK, size - pos));
    pos += chunk.length;
    const parts = (carry + decoder.write(chunk)).split("\n");
    // the bytes of each line, only where this chunk reaches the lines asked for
    const raw =
      line + parts.length - 1 < from ? [] : byLine(rawCarry.length > 0 ? Buffer.concat([rawCarry, chunk]) : chunk);
    rawCarry = raw.pop() ?? NOTHING;
    carry = parts.pop() ?? "";
    // the rest of a line not kept only has to be known to be there, and its end for what follows it
    if (line + parts.length < from && carry.length > LINE_CONTEXT_CHARS) carry = lineEnd(carry);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      if (line < from) before.add(part);
      if (line >= from && line < from + count) {
        keptBytes += Buffer.byteLength(part) + 1;
        if (keptBytes > budget) return done(`[cut at ${budget} bytes: read on with from_line=${line}]`, true);
        kept.push(part);
        check(part, raw[i]);
      }
      line++;
      if (line >= from + count) {
        const more = i < parts.length - 1 || carry !== "" || pos < size;
        return done(more ? `[more lines follow: read on with from_line=${line}]` : undefined);
      }
    }
    if (line >= from && keptBytes + Buffer.byteLength(carry) > budget)
      return done(`[cut at ${budget} bytes: line ${line} is longer; read it by offset instead]`, true);
    await new Promise((r) => setImmediate(r));
    if (signal.aborted)
      throw new RtaError(
        "core.call.cancelled",
        `reading ${JSON.stringify(sent)} was cancelled`,
        "call again to start over",
      );
  }
  // a character cut short by the end of the file is U+FFFD, as it always was
  carry += decoder.end();
  if (carry !== "" && line >= from && line < from + count) {
    kept.push(carry);
    check(carry, rawCarry);
    open = true;
  }
  if (kept.length === 0 && from > 1) return done(`[the file has ${carry === "" ? line - 1 : line} lines]`);
  return done();
}

const NOTHING: Buffer = Buffer.alloc(0);

/** `bytes` split at each 0x0a, as a text is split at each newline; the last part is what follows the last one. */
function byLine(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
    out.push(bytes.subarray(start, nl));
    start = nl + 1;
  }
  out.push(bytes.subarray(start));
  return out;
}

/** What readLines answers: the lines, what is said after them, and why they are short of what was asked. */
export type LinesRead = Pick<TextResult, "text" | "note" | "short" | "endsLine">;
