/**
 * Every pattern a caller sends (a regular expression, a plain filter, a name
 * glob) is compiled here, and only here, to RE2 (re2js). RE2 matches in time
 * linear in the text; JavaScript's RegExp backtracks, and one pattern such as
 * ^(.|.?)+\x00 held the server for a minute on a 3 KB file. So no pattern from
 * a caller reaches RegExp, and what RE2 cannot take (backreferences,
 * lookaround) is refused as `core.input.invalid` with a hint, never run.
 *
 * Linear is not the same as cheap: the work per character grows with the
 * compiled program when RE2 falls back from its DFA to its NFA. So a pattern
 * is bounded in length and in program size, and a text is matched on a
 * bounded prefix (LINE_MATCH_CHARS), which bounds what one match can cost.
 */
import type { RE2JS, RE2JSException } from "re2js";
import { RtaError } from "./errors.ts";
import { globToRe2 } from "./globToRe2.ts";
import { plainWords, requiredWords, wordFinder } from "./patternWords.ts";
import { mayBeWrittenByRedaction } from "./redact.ts";

/** re2js, loaded by the first call that matches a pattern: a server's start and most calls never need it. */
let engine: typeof import("re2js") | undefined;

/** Loads RE2 for the compile functions below; call it (once is enough) before any of them. Refuses nothing. */
export async function loadPatterns(): Promise<void> {
  engine ??= await import("re2js");
}

/** Loads RE2 now, for a caller that cannot wait (a schema's check compiled as it is first used). Refuses nothing. */
export function loadPatternsNow(): void {
  engine ??= require("re2js") as typeof import("re2js");
}

function re2(): typeof import("re2js") {
  if (!engine) throw new Error("a pattern was compiled before loadPatterns()");
  return engine;
}

/** A pattern longer than this is refused: nobody writes one this long by hand, and parsing is paid per call. */
export const MAX_PATTERN_CHARS = 4096;
/**
 * The compiled program's size, in RE2 instructions. The NFA steps every
 * instruction per character at worst: at 1,000, a 4 KiB line costs some tens
 * of milliseconds on a slow core, the most one match may hold the loop.
 */
export const MAX_PROGRAM_INSTRUCTIONS = 1000;
/**
 * The memory re2js's lazy DFA may spend per compiled pattern, by its own count
 * (JavaScript objects cost several times that). Its default, 8 MiB, came to
 * 20-40 MB held per pattern in a search, and an agent can run many searches
 * at once. Common patterns need a few KiB of states; one that needs more
 * falls back to the NFA sooner, still linear and bounded by its program.
 */
export const DFA_BUDGET_BYTES = 256 * 1024;
/** A line is matched on this many characters at most (and the pacer gives way between lines). */
export const LINE_MATCH_CHARS = 4096;

/** A compiled pattern. `test` takes one line (or one name), matches its first LINE_MATCH_CHARS, and is linear in them. */
export interface TextMatcher {
  test(text: string): boolean;
  /**
   * For a block of whole lines joined by newlines, each no longer than
   * LINE_MATCH_CHARS: false only when `test` is false for every one of them,
   * so a search can pass the block by in one step. Absent where the pattern
   * could tell a block from a line (\A, \z, or turning multi-line off), and
   * where `find` does better.
   */
  screen?: (block: string) => boolean;
  /**
   * Where in `text`, at `from` or after, the next of the words every match
   * holds begins; -1 for nowhere. A line without one cannot match, whatever
   * its length, so a search goes straight to the line holding the next one.
   * Each word's next place is remembered while a search moves forward
   * through a text, so finding them all costs time linear in it.
   */
  find?: (text: string, from: number) => number;
  /** The words `find` looks for. */
  words?: readonly string[];
}

/** A block given to `screen` is at most this long, so one screening costs what one line does. */
export const SCREEN_BLOCK_CHARS = LINE_MATCH_CHARS;

const REGEX_HINT =
  "RE2 syntax: classes, groups, | and repetition ({n,m} up to 1000) and flags such as (?i) work; " +
  "backreferences (\\1) and lookaround ((?=, (?!, (?<=, (?<!) do not; " +
  "escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them, and write \\x{41} for \\u0041";

/**
 * A regular expression in RE2 syntax, matched anywhere in a line.
 * Refuses (core.input.invalid) a pattern past MAX_PATTERN_CHARS, one RE2
 * rejects (backreferences, lookaround, bad syntax, repeats past 1000), and one
 * whose program is past MAX_PROGRAM_INSTRUCTIONS.
 * @param input the input's name, for the message ("pattern")
 */
export function compileRegex(input: string, pattern: string, options: { ignoreCase?: boolean } = {}): TextMatcher {
  checkLength(input, pattern, "regular expression");
  const ignoreCase = options.ignoreCase === true;
  const line = compiled(input, pattern, ignoreCase, REGEX_HINT);
  const words = plainWords(pattern, ignoreCase);
  if (words) return { test: lineTest(line), find: wordFinder(words, ignoreCase), words };
  // re2js leaves case-folded literals out of its prefilter: the words it names match exactly
  const required = requiredWords(line.re2().prefilter);
  if (required) return { test: lineTest(line), find: wordFinder(required, false), words: required };
  // A match inside a line is a match inside a block holding it, once ^ and $ mean the ends of each line (?m);
  // only assertions about the whole text (\A, \z, (?-m)) could tell the two apart.
  const blockSafe = !/\\[Az]/.test(pattern) && !/\(\?[A-Za-z]*-/.test(pattern);
  const block = blockSafe ? compiled(input, `(?m)${pattern}`, ignoreCase, REGEX_HINT) : undefined;
  return { test: lineTest(line), ...(block ? { screen: (text: string) => block.test(text) } : {}) };
}

/**
 * Plain text, matched anywhere in a line: nothing in it is special. Refuses
 * only text past MAX_PATTERN_CHARS.
 */
export function compileLiteral(input: string, text: string, options: { ignoreCase?: boolean } = {}): TextMatcher {
  checkLength(input, text, "filter");
  // A literal's program is as long as the text, but its DFA has a state per character and never falls back.
  const ignoreCase = options.ignoreCase === true;
  const re = compiled(input, re2().RE2JS.quote(text), ignoreCase, "send less text", "filter", false);
  const ascii = /^[\x20-\x7e]*$/.test(text);
  if (!ignoreCase || ascii) return { test: lineTest(re), find: wordFinder([text], ignoreCase), words: [text] };
  return { test: lineTest(re), screen: (block) => re.test(block) };
}

const GLOB_HINT =
  "* is any run of characters, ? one character, [abc] or [a-z] one of a set ([!abc] none of it), " +
  "{a,b} either; a backslash makes the next character plain";

/**
 * A glob, matched against a whole name (not a path): `*` and `**` any run,
 * `?` one character, `[...]` a set (`[!...]` or `[^...]` its complement),
 * `{a,b}` alternatives (nested), `\` makes the next character plain, and a
 * leading `!` matches the names the rest does not. An unclosed `[` or `{` is
 * plain text. The glob is translated to RE2, so matching is linear as well.
 * Refuses (core.input.invalid) a glob past MAX_PATTERN_CHARS, a set with a
 * range the wrong way round, and one too large to compile.
 */
export function compileGlob(input: string, glob: string): TextMatcher {
  checkLength(input, glob, "glob");
  const negate = glob.startsWith("!");
  const body = negate ? glob.slice(1) : glob;
  // (?s): a name may hold a newline, and * and ? match it too
  const m = compiled(input, `(?s)^(?:${globToRe2(body)})$`, false, GLOB_HINT, "glob");
  // a name is at most 255 bytes: it is matched whole
  return { test: negate ? (name) => !m.test(name) : (name) => m.test(name) };
}

/**
 * A `pattern` of an upstream's input schema, as ajv's engine for it: compiled
 * to RE2, so an agent's argument is matched in time linear in it (RegExp,
 * ajv's own engine, would let a schema such as ^(a+)+$ hold the server on a
 * 40-character argument). Refuses (core.input.invalid) what compileRegex
 * does: ajv then fails the schema, and its tool is left out.
 */
export function schemaPattern(pattern: string): { test(text: string): boolean; toString(): string; size: number } {
  checkLength("pattern", pattern, "regular expression");
  // compiled now to refuse what RE2 cannot take, and kept only once an argument is matched: an upstream may list
  // 10,000 tools of a dozen patterns each, and a compiled program with its DFA is some KiB
  const size = programSize(compiled("pattern", pattern, false, REGEX_HINT));
  let re: RE2JS | undefined;
  // ajv keeps one engine per pattern, keyed by what toString says
  return {
    test: (text) => {
      re ??= compiled("pattern", pattern, false, REGEX_HINT);
      return re.test(text);
    },
    toString: () => pattern,
    size,
  };
}

function checkLength(input: string, text: string, what: string): void {
  if (text.length > MAX_PATTERN_CHARS)
    throw new RtaError(
      "core.input.invalid",
      `${input} is ${text.length} characters long; a ${what} may be at most ${MAX_PATTERN_CHARS}`,
      "send a shorter one",
    );
}

function compiled(
  input: string,
  source: string,
  ignoreCase: boolean,
  hint: string,
  what = "regular expression",
  boundProgram = true,
): RE2JS {
  let re: RE2JS;
  try {
    const { RE2JS: Re2 } = re2();
    re = Re2.compile(source, ignoreCase ? Re2.CASE_INSENSITIVE : 0);
  } catch (err) {
    if (!(err instanceof re2().RE2JSException)) throw err;
    const reason = what === "glob" ? globWhy(err) : why(err, source);
    throw new RtaError("core.input.invalid", `${input} is not a ${what} rta can match: ${reason}`, hint);
  }
  // The program and the DFA are not part of re2js's typed surface (pinned at 2.10.0): the program's size bounds
  // the NFA's work per character, and the DFA's budget the memory one search holds.
  const internals = re.re2() as unknown as {
    prog: { numInst(): number };
    dfa: { stateBudget: number; memBudget: number };
  };
  internals.dfa.stateBudget = DFA_BUDGET_BYTES;
  internals.dfa.memBudget = DFA_BUDGET_BYTES;
  const size = programSize(re);
  if (boundProgram && size > MAX_PROGRAM_INSTRUCTIONS)
    throw new RtaError(
      "core.input.invalid",
      `${input} compiles to ${size} RE2 instructions; at most ${MAX_PROGRAM_INSTRUCTIONS} are taken`,
      "use smaller repeat counts ({n,m}) or fewer alternatives",
    );
  return re;
}

/** A compiled pattern's size in RE2 instructions: what the NFA may step per character. */
function programSize(re: RE2JS): number {
  return (re.re2() as unknown as { prog: { numInst(): number } }).prog.numInst();
}

function lineTest(line: RE2JS): (text: string) => boolean {
  return (text) => line.test(text.length > LINE_MATCH_CHARS ? text.slice(0, LINE_MATCH_CHARS) : text);
}

/** What RE2 found wrong, in words; the piece it points at only when short, so a long pattern is not echoed back. */
function why(err: RE2JSException, pattern: string): string {
  if (!(err instanceof re2().RE2JSSyntaxException)) return "it is too large";
  const piece = err.input ?? "";
  if (/^\\[1-9]/.test(piece)) return "backreferences (\\1) are not supported";
  if (piece === "(?P" && pattern.includes("(?P=")) return "backreferences ((?P=name)) are not supported";
  if (piece.startsWith("(?=") || piece.startsWith("(?!")) return "lookahead ((?= or (?!) is not supported";
  if (piece.startsWith("(?<=") || piece.startsWith("(?<!")) return "lookbehind ((?<= or (?<!) is not supported";
  if (piece === "\\k" || piece.startsWith("\\k<")) return "backreferences (\\k<name>) are not supported";
  const desc = err.error.replace(/^error parsing regexp: /, "");
  return piece !== "" && piece.length <= 24 ? `${desc}: ${piece}` : desc;
}

/** The glob was translated, so RE2's words would name a pattern the caller never wrote. */
function globWhy(err: RE2JSException): string {
  if (err instanceof re2().RE2JSSyntaxException && err.error.includes("range"))
    return "a set has a range the wrong way round";
  return "it nests or repeats too much";
}

/**
 * The matcher for lines an agent is shown masked and renamed (see
 * Redactor.shown): `test` is given the shown line, while a skip-ahead reads
 * the file's own text. A skip that passed by a line whose shown form matches
 * would make what comes back depend on what is not shown: `\*\*\*|Bearer Zq8`
 * found a masked bearer line only when its secret began Zq8. So `screen`,
 * which tests the file's own text, is dropped, and `find` is kept only when
 * no word it looks for can be written by redaction (see mayBeWrittenByRedaction):
 * then a line whose shown form holds a word holds it in its own text too.
 */
export function forShownLines(matcher: TextMatcher): TextMatcher {
  const { test, find, words } = matcher;
  if (find === undefined || words === undefined || words.some(mayBeWrittenByRedaction)) return { test };
  return { test, find, words };
}
