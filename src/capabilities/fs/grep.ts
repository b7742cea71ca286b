/**
 * fs.grep: lines matching a regular expression, in a file or under a
 * directory. The pattern and the glob are compiled by core/pattern to RE2,
 * which matches in linear time, so no pattern can stall the server; a line is
 * matched on its first 4,096 characters, and the search gives way between
 * lines and stops when the call is cancelled.
 */
import { closeSync } from "node:fs";
import { define } from "../../core/capability.ts";
import { Pacer } from "../../core/pacer.ts";
import {
  compileGlob,
  compileRegex,
  LINE_MATCH_CHARS,
  SCREEN_BLOCK_CHARS,
  type TextMatcher,
} from "../../core/pattern.ts";
import type { ReadPath } from "../../gate/pathGate.ts";
import { looksBinary, notFile, openChild, readRange, walk } from "./fdio.ts";

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
      description: "a regular expression in RE2 syntax (no backreferences or lookaround), matched in each line",
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
    glob: { type: "string", description: "only files whose name matches this glob", default: "*" },
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
      { name: "file", doc: "the file, from the directory searched" },
      { name: "line", doc: "the line number, from 1" },
      { name: "text", doc: "the line" },
    ],
  },
  examples: [{ command: 'rta fs grep "TODO" src --glob "*.ts"', note: "every TODO in the TypeScript under src" }],
  async run(args, ctx) {
    const re = compileRegex("pattern", String(args.pattern), { ignoreCase: args.ignore_case === true });
    const glob = compileGlob("glob", String(args.glob));
    const max = args.max_matches as number;
    const start = ctx.paths.path as ReadPath;
    const out = ctx.rows(["file", "line", "text"]);
    const pacer = new Pacer(ctx.signal, `searching ${JSON.stringify(start.sent)}`);
    let matches = 0;
    const search = async (fd: number, file: string): Promise<boolean> => {
      matches += await grepFile(fd, file, re, max - matches, (row) => out.add(row), pacer);
      return matches < max;
    };
    await pacer.pause(); // a call cancelled as soon as it was sent stops here, before reading a byte
    if (start.stat.isFile()) await search(start.fd, start.sent);
    else if (!start.stat.isDirectory())
      throw notFile(start.sent); // a FIFO or a device: nothing to list or read to an end
    else {
      await walk(start.fd, ctx.gate, 64, pacer, async (e) => {
        if (!e.stat.isFile() || !glob.test(e.name)) return true;
        const fd = openChild(e.dirFd, e.name, false, ctx.gate);
        if (fd === undefined) return true;
        try {
          return await search(fd, e.rel);
        } finally {
          closeSync(fd);
        }
      });
    }
    return out.finish();
  },
});

/**
 * Matching lines of one file, at most `room`; binary files are passed by.
 * Returns how many matched. A line is held to its first LINE_MATCH_CHARS
 * (the part matched and shown), however long it runs, so a file that is one
 * endless line costs no more than one of short lines.
 */
async function grepFile(
  fd: number,
  file: string,
  re: TextMatcher,
  room: number,
  emit: (row: [string, number, string]) => void,
  pacer: Pacer,
): Promise<number> {
  const first = readRange(fd, 0, CHUNK);
  if (looksBinary(first)) return 0;
  // streaming, so a character split across two chunks is read whole
  const decoder = new TextDecoder("utf-8");
  let found = 0;
  let line = 1;
  let pos = 0;
  const partial = new LineStart();
  const end = (text: string): boolean => {
    if (re.test(text)) {
      emit([file, line, partial.cut ? `${text}...` : text]);
      found++;
    }
    line++;
    partial.reset();
    return found < room;
  };
  while (pos < FILE_SCAN_BYTES) {
    const chunk = pos === 0 ? first : readRange(fd, pos, CHUNK);
    if (chunk.length === 0) break;
    pos += chunk.length;
    const text = decoder.decode(chunk, { stream: true });
    let from = 0;
    let screenedTo = -1; // lines up to here were in a block that may match: they go one by one
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      if (re.screen && from > screenedTo && partial.empty()) {
        const blockEnd = text.lastIndexOf("\n", from + SCREEN_BLOCK_CHARS);
        const verdict = screenLines(text, from, blockEnd, re.screen);
        if (verdict) {
          line += verdict.passed;
          from = verdict.resume;
          // the lines from here may match: one by one up to the block's end, or past the one a word was found in
          screenedTo = verdict.clear ? -1 : re.screenSaysWhere ? text.indexOf("\n", from) : blockEnd;
          if (pacer.due()) await pacer.pause();
          if (verdict.clear) continue;
          nl = text.indexOf("\n", from);
        } else screenedTo = blockEnd;
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

/**
 * Screens the whole lines in text[from, blockEnd] (each ends in a newline) at
 * once. Returns how many lines the pattern cannot match from the first on,
 * and where to go on: past the block when it is `clear`, or at the first
 * line that may match. Undefined when the lines must go one by one: a line
 * too long to be screened with the others.
 */
function screenLines(
  text: string,
  from: number,
  blockEnd: number,
  screen: (block: string) => number,
): { passed: number; resume: number; clear: boolean } | undefined {
  if (blockEnd < from) return undefined;
  for (let at = from; at <= blockEnd; ) {
    const nl = text.indexOf("\n", at);
    if (nl - at > LINE_MATCH_CHARS) return undefined;
    at = nl + 1;
  }
  const found = screen(text.slice(from, blockEnd));
  // the start of the line the screen points into (from is a line start; lastIndexOf would read from - 1 as 0)
  const resume = found === -1 ? blockEnd + 1 : found === 0 ? from : text.lastIndexOf("\n", from + found - 1) + 1;
  let passed = 0;
  for (let at = from; at < resume; passed++) at = text.indexOf("\n", at) + 1;
  return { passed, resume, clear: found === -1 };
}

/** The start of the line being read, at most LINE_MATCH_CHARS of it; `cut` once more was passed by. */
class LineStart {
  private kept = "";
  cut = false;

  /** Adds text[from, to) and returns the line's start so far. */
  add(text: string, from: number, to: number | undefined): string {
    const room = LINE_MATCH_CHARS - this.kept.length;
    const stop = to ?? text.length;
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
  }
}
