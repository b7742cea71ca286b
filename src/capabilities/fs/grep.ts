/**
 * fs.grep: lines matching a regular expression, in a file or under a
 * directory. JavaScript's regular expressions can take exponential time on
 * nested quantifiers, so patterns that nest them are refused, lines are
 * matched on their first 4 KiB, and the search stops at its match limit.
 */
import { closeSync } from "node:fs";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import type { ReadPath } from "../../gate/pathGate.ts";
import { looksBinary, openChild, readRange, walk } from "./fdio.ts";

/** A line longer than this is matched on its first part only. */
const LINE_MATCH_BYTES = 4096;
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
      description: "a regular expression (JavaScript syntax)",
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
    const re = compile(String(args.pattern), args.ignore_case === true);
    const glob = new Bun.Glob(String(args.glob));
    const max = args.max_matches as number;
    // a line is matched as the caller will see it, so a secret's letters cannot be guessed one by one
    const shown = ctx.shown ?? ((line: string) => line);
    const start = ctx.paths.path as ReadPath;
    const out = ctx.rows(["file", "line", "text"]);
    let matches = 0;
    const search = (fd: number, file: string): boolean => {
      matches = grepFile(fd, file, re, max - matches, (row) => out.add(row), shown) + matches;
      return matches < max;
    };
    if (start.stat.isFile()) search(start.fd, start.sent);
    else {
      walk(start.fd, ctx.gate, 64, (e) => {
        if (!e.stat.isFile() || !glob.match(e.name)) return true;
        const fd = openChild(e.dirFd, e.name, false, ctx.gate);
        if (fd === undefined) return true;
        try {
          return search(fd, e.rel);
        } finally {
          closeSync(fd);
        }
      });
    }
    return out.finish();
  },
});

/** Nested quantifiers, e.g. (a+)+ or (x*)*: the shape of catastrophic backtracking. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/;

function compile(pattern: string, ignoreCase: boolean): RegExp {
  if (NESTED_QUANTIFIER.test(pattern)) {
    throw new RtaError(
      "fs.badpattern",
      "the pattern nests one repetition inside another",
      "write it without a repeated group that itself repeats, e.g. (ab)+ rather than (a+)+",
    );
  }
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (err) {
    throw new RtaError(
      "fs.badpattern",
      `the pattern is not a regular expression: ${(err as Error).message}`,
      "JavaScript syntax: escape ( ) [ ] . * + ? with a backslash to match them",
    );
  }
}

/** Matching lines of one file, at most `room`; binary files are passed by. Returns how many matched. */
function grepFile(
  fd: number,
  file: string,
  re: RegExp,
  room: number,
  emit: (row: [string, number, string]) => void,
  shown: (line: string) => string,
): number {
  const first = readRange(fd, 0, CHUNK);
  if (looksBinary(first)) return 0;
  let found = 0;
  let line = 1;
  let pos = 0;
  let carry = "";
  while (pos < FILE_SCAN_BYTES) {
    const chunk = pos === 0 ? first : readRange(fd, pos, CHUNK);
    if (chunk.length === 0) break;
    pos += chunk.length;
    const parts = (carry + chunk.toString("utf8")).split("\n");
    carry = parts.pop() ?? "";
    for (const text of parts) {
      if (re.test(shown(text.length > LINE_MATCH_BYTES ? text.slice(0, LINE_MATCH_BYTES) : text))) {
        emit([file, line, text.length > LINE_MATCH_BYTES ? `${text.slice(0, LINE_MATCH_BYTES)}...` : text]);
        if (++found >= room) return found;
      }
      line++;
    }
  }
  if (carry && re.test(shown(carry.slice(0, LINE_MATCH_BYTES)))) {
    emit([file, line, carry.slice(0, LINE_MATCH_BYTES)]);
    found++;
  }
  return found;
}
