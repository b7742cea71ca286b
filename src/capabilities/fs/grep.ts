/**
 * fs.grep: lines matching a regular expression, in a file or under a
 * directory. The pattern and the glob are compiled by core/pattern to RE2,
 * which matches in linear time, so no pattern can stall the server; a line is
 * matched on its first 4,096 characters, and the search gives way between
 * lines and stops when the call is cancelled.
 */
import type { FileBytes } from "../../core/access.ts";
import { define } from "../../core/capability.ts";
import { Pacer } from "../../core/pacer.ts";
import {
  compileGlob,
  compileRegex,
  forShownLines,
  LINE_MATCH_CHARS,
  loadPatterns,
  SCREEN_BLOCK_CHARS,
  type TextMatcher,
} from "../../core/pattern.ts";
import { ARMOUR_END } from "../../core/privateKeys.ts";
import { cutAtWord, LINE_CONTEXT_CHARS, LinesBefore, lineEnd } from "../../core/secrets.ts";
import { looksBinary, notFile } from "./entryKind.ts";
import { asWritten, WalkProgress, withSkipped } from "./walkNotes.ts";

/** A file larger than this is searched in its first part only. */
const FILE_SCAN_BYTES = 16 * 1024 * 1024;
const CHUNK = 64 * 1024;

export const fsGrep = define({
  name: "fs.grep",
  summary: "Search files for lines matching a regular expression",
  searchWords: ["grep", "search text", "find in files", "ripgrep"],
  safety: "read",
  inputs: {
    pattern: {
      type: "string",
      description:
        "a regular expression in RE2 syntax (no backreferences or lookaround), matched in a line's first 4,096 characters",
      required: true,
      positional: true,
    },
    path: {
      type: "string",
      description: "a file, or a directory to search under",
      default: ".",
      path: "read",
      positional: true,
    },
    glob: {
      type: "string",
      description: "only files whose name matches this glob (* ? [abc] [!abc] {a,b})",
      default: "*",
    },
    ignore_case: { type: "boolean", description: "match without regard to case", default: false },
    max_matches: {
      type: "integer",
      description: "stop after this many matching lines",
      range: [1, 10_000],
      default: 100,
    },
  },
  result: {
    shape: "table",
    columns: [
      { name: "file", doc: "the file, beginning with the path searched as it was sent" },
      { name: "line", doc: "the line number, from 1" },
      { name: "text", doc: "the line" },
    ],
    whenEmpty: "fs.grep.nomatch",
  },
  examples: [{ command: 'rta fs grep "TODO" src --glob "*.ts"', note: "every TODO in the TypeScript under src" }],
  async run(args, ctx) {
    await loadPatterns();
    const compiled = compileRegex("pattern", args.pattern, { ignoreCase: args.ignore_case === true });
    const re = ctx.shown === undefined ? compiled : forShownLines(compiled);
    const glob = compileGlob("glob", args.glob);
    const max = args.max_matches;
    const start = ctx.paths.path;
    const out = ctx.rows();
    const pacer = new Pacer(ctx.signal, `searching ${JSON.stringify(start.sent)}`);
    let matches = 0;
    const search = async (bytes: FileBytes, file: string): Promise<boolean> => {
      matches += await grepFile(bytes, file, re, max - matches, (row) => out.add(row), pacer, ctx.shown);
      return matches < max;
    };
    await pacer.pause(); // a call cancelled as soon as it was sent stops here, before reading a byte
    const dir = start.dir();
    if (start.stat.isFile()) await search(start, start.sent);
    else if (!dir) throw notFile(start.sent); // a FIFO or a device: nothing to list or read to an end
    const seen = new WalkProgress(ctx.progress);
    const walked = await dir?.walk(64, pacer, async (e) => {
      const file = e.stat.isFile() && glob.test(e.name) ? e.openFile() : undefined;
      seen.saw(file === undefined ? 0 : Math.min(e.stat.size, FILE_SCAN_BYTES));
      if (file === undefined) return true;
      try {
        return await search(file, asWritten(start.sent, e.rel));
      } finally {
        file.close();
      }
    });
    return withSkipped(out.finish(), walked?.skipped ?? 0, start.sent);
  },
});

/**
 * Matching lines of one file, at most `room`; binary files are passed by.
 * Returns how many matched. A line is held to its first LINE_MATCH_CHARS
 * (the part matched and shown), however long it runs, so a file that is one
 * endless line costs no more than one of short lines.
 *
 * With `shown` (an agent), a line is matched and shown as `shown` makes it,
 * given the lines before it: a credential's value on the line after its
 * name is masked as a whole read masks it, and a line cut short loses the
 * word at its cut, which may be the head of a credential masked only whole.
 */
async function grepFile(
  bytes: FileBytes,
  file: string,
  re: TextMatcher,
  room: number,
  emit: (row: [string, number, string]) => void,
  pacer: Pacer,
  shown?: (text: string, before?: string, cut?: boolean) => string,
): Promise<number> {
  const first = bytes.read(0, CHUNK);
  if (looksBinary(first)) return 0;
  // streaming, so a character split across two chunks is read whole
  const decoder = new TextDecoder("utf-8");
  let found = 0;
  let line = 1;
  let pos = 0;
  const partial = new LineStart();
  const before = new LinesBefore();
  const end = (text: string): boolean => {
    const seen = shown === undefined ? text : shown(partial.cut ? cutAtWord(text) : text, before.text(), partial.cut);
    if (re.test(seen)) {
      emit([file, line, partial.cut ? `${seen}...` : seen]);
      found++;
    }
    line++;
    before.add(partial.cut ? partial.end : text);
    partial.reset();
    return found < room;
  };
  while (pos < FILE_SCAN_BYTES) {
    const chunk = pos === 0 ? first : bytes.read(pos, CHUNK);
    if (chunk.length === 0) break;
    pos += chunk.length;
    const text = decoder.decode(chunk, { stream: true });
    let armours: number[] | undefined; // where a private key's armour stands in the chunk, found once if a skip asks
    let from = 0;
    let oneByOne = -1; // lines that end up to here may match: they are tested one by one
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      if (from > oneByOne && partial.empty()) {
        const skip = re.find
          ? toNextWord(text, from, re.find)
          : re.screen
            ? screenBlock(text, from, re.screen)
            : undefined;
        oneByOne = skip ? skip.oneByOne : nl;
        if (skip && skip.resume > from) {
          if (shown) {
            armours ??= armoursIn(text);
            linesBefore(text, from, skip.resume, before, armours);
          }
          line += skip.passed;
          from = skip.resume;
          if (pacer.due()) await pacer.pause();
          continue;
        }
      }
      if (!end(partial.add(text, from, nl))) return found;
      from = nl + 1;
      if (pacer.due()) await pacer.pause();
    }
    partial.add(text, from, text.length);
    if (pacer.due()) await pacer.pause();
  }
  const rest = partial.add(decoder.decode(), 0, undefined);
  if (rest !== "" || partial.cut) end(rest);
  return found;
}

/** Lines passed by in one step: how many, where to go on (`from` itself: none), and up to where lines then go one by one. */
interface Skip {
  passed: number;
  resume: number;
  oneByOne: number;
}

/**
 * To the line holding the next word every match holds: the whole lines
 * before it cannot match. With no word left in the chunk's whole lines, past
 * all of them. Undefined when the line at `from` holds one.
 */
function toNextWord(text: string, from: number, find: (text: string, from: number) => number): Skip | undefined {
  const at = find(text, from);
  const lastWhole = text.lastIndexOf("\n"); // a line after it is not whole yet: the next chunk completes it
  const resume = at === -1 || at > lastWhole ? lastWhole + 1 : text.lastIndexOf("\n", at - 1) + 1;
  if (resume <= from) return undefined;
  return { passed: linesIn(text, from, resume), resume, oneByOne: text.indexOf("\n", resume) };
}

/**
 * Screens the whole lines starting at `from` that fit in SCREEN_BLOCK_CHARS
 * at once, past them when the pattern matches none. Otherwise they go one by
 * one (and are not screened again): a block that may match, or one with a
 * line too long to be screened with others (a line is matched on its start
 * only, a block on all of it).
 */
function screenBlock(text: string, from: number, screen: (block: string) => boolean): Skip {
  const blockEnd = text.lastIndexOf("\n", from + SCREEN_BLOCK_CHARS);
  const oneByOne = { passed: 0, resume: from, oneByOne: Math.max(blockEnd, text.indexOf("\n", from)) };
  if (blockEnd < from) return oneByOne; // the line at `from` alone is longer than a block
  for (let at = from; at <= blockEnd; ) {
    const nl = text.indexOf("\n", at);
    if (nl - at > LINE_MATCH_CHARS) return oneByOne;
    at = nl + 1;
  }
  if (screen(text.slice(from, blockEnd))) return oneByOne;
  return { passed: linesIn(text, from, blockEnd + 1), resume: blockEnd + 1, oneByOne: -1 };
}

/**
 * Tells `before` the last two lines that are not blank among the whole lines
 * text[from, to) a skip passed by: what masking the line after them needs.
 * Walks back from `to` no further than it must.
 */
function linesBefore(text: string, from: number, to: number, before: LinesBefore, armours: readonly number[]): void {
  // a private key's armour passed by tells whether the lines after it are inside one
  const armour = armours.findLast((at) => at >= from && at < to);
  if (armour !== undefined)
    before.add(text.slice(Math.max(from, text.lastIndexOf("\n", armour) + 1), armour + ARMOUR_END.length));
  const found: string[] = [];
  for (let end = to - 1; end > from && found.length < 2; ) {
    const start = Math.max(from, text.lastIndexOf("\n", end - 1) + 1);
    // a line's end is looked at first, the whole of a long line only when its end is blank
    const tail = text.slice(Math.max(start, end - LINE_CONTEXT_CHARS), end);
    if (/\S/.test(tail) || (end - start > LINE_CONTEXT_CHARS && /\S/.test(text.slice(start, end))))
      found.unshift(text.slice(start, end));
    end = start - 1;
  }
  for (const l of found) before.add(l);
}

/** Where each armour ends in a chunk, in order: searched once per chunk, not once per skip. */
function armoursIn(text: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(ARMOUR_END); i !== -1; i = text.indexOf(ARMOUR_END, i + 1)) at.push(i);
  return at;
}

/** The newlines in text[from, to). */
function linesIn(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/**
 * The start of the line being read, at most LINE_MATCH_CHARS of it; `cut`
 * once more was passed by. The `end` of a cut line, its last
 * LINE_CONTEXT_CHARS, is kept too: the line after it may be a value whose
 * name that end holds.
 */
class LineStart {
  private kept = "";
  cut = false;
  end = "";

  /** Adds text[from, to) and returns the line's start so far. */
  add(text: string, from: number, to: number | undefined): string {
    const room = LINE_MATCH_CHARS - this.kept.length;
    const stop = to ?? text.length;
    if (this.cut || stop - from > room) {
      // past its start only a cut line's end is kept apart (a whole one is its own end); whitespace keeps the end before it
      const prior = this.cut ? this.end : this.kept;
      const piece = lineEnd(text, from, stop);
      this.end = /\S/.test(piece) ? lineEnd(prior + piece) : lineEnd(`${prior} `);
    }
    if (stop - from > room) {
      this.cut = true;
      this.kept += text.slice(from, from + room);
    } else this.kept += text.slice(from, stop);
    return this.kept;
  }

  empty(): boolean {
    return this.kept === "" && !this.cut;
  }

  reset(): void {
    this.kept = "";
    this.cut = false;
    this.end = "";
  }
}
