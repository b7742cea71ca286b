import { describe, expect, test } from "bun:test";
import { RE2JS } from "re2js";
import { RtaError } from "../../src/core/errors.ts";
import {
  compileGlob,
  compileLiteral,
  compileRegex,
  LINE_MATCH_CHARS,
  loadPatterns,
  MAX_PATTERN_CHARS,
  SCREEN_BLOCK_CHARS,
} from "../../src/core/pattern.ts";

// RE2 is loaded by the first call that matches a pattern; a start loads none of it.
await loadPatterns();

function refusal(f: () => unknown): RtaError {
  try {
    f();
  } catch (err) {
    if (err instanceof RtaError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("compileRegex", () => {
  test("patterns that backtrack exponentially under RegExp are matched, with RE2's answers", () => {
    const line = `${"a".repeat(40)}!`;
    expect(compileRegex("pattern", "^(.|.?)+\\x00").test(line)).toBe(false);
    expect(compileRegex("pattern", "((a+))+$").test(line)).toBe(false);
    expect(compileRegex("pattern", "((a+))+$").test("a".repeat(40))).toBe(true);
    expect(compileRegex("pattern", "(a|a)*$").test(line)).toBe(true);
    expect(compileRegex("pattern", "(x+x+)+y").test("x".repeat(5000))).toBe(false);
  });

  test("case-insensitive on request; RE2's own flags in the pattern too", () => {
    expect(compileRegex("pattern", "todo").test("a TODO")).toBe(false);
    expect(compileRegex("pattern", "todo", { ignoreCase: true }).test("a TODO")).toBe(true);
    expect(compileRegex("pattern", "(?i)todo").test("a ToDo")).toBe(true);
    expect(compileRegex("pattern", "\\bword\\b").test("a word here")).toBe(true);
    expect(compileRegex("pattern", "(?P<n>\\d+)-(?<m>\\d+)").test("10-20")).toBe(true);
  });

  test("backreferences and lookaround are refused with core.input.invalid, saying which and how RE2 reads", () => {
    const cases: [string, RegExp][] = [
      ["(a)\\1", /backreferences \(\\1\)/],
      ["(?<x>a)\\k<x>", /backreferences \(\\k<name>\)/],
      ["(?P<x>a)(?P=x)", /backreferences \(\(\?P=name\)\)/],
      ["a(?=b)", /lookahead/],
      ["a(?!b)", /lookahead/],
      ["(?<=a)b", /lookbehind/],
      ["(?<!a)b", /lookbehind/],
    ];
    for (const [pattern, why] of cases) {
      const e = refusal(() => compileRegex("pattern", pattern));
      expect(e.code).toBe("core.input.invalid");
      expect(e.message).toMatch(why);
      expect(e.hint).toContain("RE2 syntax");
    }
  });

  test("bad syntax, repeats past 1000, a long pattern and a large program are refused, none echoed whole", () => {
    expect(refusal(() => compileRegex("pattern", "(unclosed")).message).toBe(
      "pattern is not a regular expression rta can match: missing closing ): (unclosed",
    );
    expect(refusal(() => compileRegex("pattern", "a{1001}")).code).toBe("core.input.invalid");
    expect(refusal(() => compileRegex("pattern", "\\u0041")).code).toBe("core.input.invalid");
    const long = `(${"x".repeat(MAX_PATTERN_CHARS)}`;
    const e = refusal(() => compileRegex("pattern", long));
    expect(e.message).toBe(`pattern is ${long.length} characters long; a regular expression may be at most 4096`);
    const unclosedLong = `(${"x".repeat(100)}`;
    expect(refusal(() => compileRegex("pattern", unclosedLong)).message).not.toContain("x".repeat(30));
    const big = refusal(() => compileRegex("pattern", "(?s).{600}(.{600})?$"));
    expect(big.code).toBe("core.input.invalid");
    expect(big.message).toMatch(/compiles to \d+ RE2 instructions; at most 1000 are taken/);
  });

  test("a line is matched on its first LINE_MATCH_CHARS characters", () => {
    const m = compileRegex("pattern", "needle");
    expect(m.test(`${"x".repeat(LINE_MATCH_CHARS - 6)}needle`)).toBe(true);
    expect(m.test(`${"x".repeat(LINE_MATCH_CHARS)}needle`)).toBe(false);
  });

  test("a screen never misses a block holding a line that matches (fixed-seed differential)", () => {
    let seed = 42;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const atoms = [
      "a",
      "b",
      "ab",
      ".",
      "[ab]",
      "[^a]",
      "\\s",
      "\\w",
      "\\b",
      "\\B",
      "^",
      "$",
      "x?",
      "(a|b)",
      "\\d",
      "s",
      "k",
      "sk",
    ];
    const quants = ["", "", "*", "+", "?", "{2}", "{1,3}"];
    // with the two letters outside ASCII that RE2 folds to ASCII ones: the long s and the Kelvin sign
    const alphabet = ["a", "b", " ", "x", "1", "é", "A", "s", "S", "\u017f", "k", "\u212a"];
    let screened = 0;
    for (let p = 0; p < 300; p++) {
      const pattern = Array.from({ length: 1 + next(4) }, () => `${atoms[next(atoms.length)]}${quants[next(7)]}`).join(
        next(5) === 0 ? "|" : "",
      );
      let m: ReturnType<typeof compileRegex>;
      try {
        m = compileRegex("pattern", pattern, { ignoreCase: next(2) === 0 });
      } catch {
        continue; // e.g. a repeat of an empty-width assertion
      }
      if (m.find) {
        // no line without a word may match, and find names each word's place in turn
        for (let b = 0; b < 5; b++) {
          const lines = Array.from({ length: 1 + next(5) }, () =>
            Array.from({ length: next(6) }, () => alphabet[next(alphabet.length)]).join(""),
          );
          const text = lines.join("\n");
          let start = 0;
          for (const l of lines) {
            const at = m.find(text, start);
            const holds = at !== -1 && at <= start + l.length;
            if (m.test(l) && !holds) throw new Error(`find passed ${JSON.stringify(l)} by for ${pattern}`);
            start += l.length + 1;
          }
          screened++;
        }
        continue;
      }
      if (!m.screen) throw new Error(`no screen for ${pattern}`);
      for (let b = 0; b < 20; b++) {
        const lines = Array.from({ length: 1 + next(5) }, () =>
          Array.from({ length: next(6) }, () => alphabet[next(alphabet.length)]).join(""),
        );
        const anyLine = lines.some((l) => m.test(l));
        const block = lines.join("\n");
        expect(block.length).toBeLessThanOrEqual(SCREEN_BLOCK_CHARS);
        if (anyLine && !m.screen(block)) throw new Error(`screen missed ${JSON.stringify(lines)} for ${pattern}`);
        screened++;
      }
    }
    expect(screened).toBeGreaterThan(3000);
  });

  test("words every match holds are found by re2js's prefilter: literals, sequences, alternatives", () => {
    const where = (pattern: string, text: string, from = 0) => compileRegex("pattern", pattern).find?.(text, from);
    expect(where("^\\s*return null;", "a\n  if (x) return null;\n")).toBe(11);
    expect(where("ERROR.*disk", "a disk\nERROR x disk")).toBe(7); // the longer word of the two
    expect(where("(GET|POST) /api", "x POST /api\nGET /")).toBe(6); // " /api": longer than GET or POST
    expect(where("GET /a|POST /b", "x POST /b\nGET /a")).toBe(2);
    expect(where("GET /a|POST /b", "x POST /b\nGET /a", 3)).toBe(10);
    expect(where("[0-9]+ ms", "1 s\n2 ms", 0)).toBe(5);
    // case-folded literals have no words: RE2 screens the block instead
    expect(compileRegex("pattern", "(?i)error").find).toBeUndefined();
    expect(compileRegex("pattern", "(?i)error").screen?.("a\nERROR")).toBe(true);
  });

  test("find moves forward through a text, and starts afresh for another (or the same one again)", () => {
    const m = compileRegex("pattern", "ab|cd");
    const text = "cd ab\nx\ncd";
    expect([0, 1, 4, 6, 9, 10].map((from) => m.find?.(text, from))).toEqual([0, 3, 8, 8, -1, -1]);
    expect(m.find?.(`${"cd ab\nx\n"}cd`, 0)).toBe(0); // equal text, from further back
  });

  test("plain words are found by substring search, case variants outside ASCII included", () => {
    const m = compileRegex("pattern", "desk|FATAL", { ignoreCase: true });
    for (const line of ["DESK", "de\u017f\u212a", "fAtAl", "Fata\u013e"]) {
      const text = `nothing here\n${line}\nnor here`;
      expect([line, m.find?.(text, 0)]).toEqual([line, m.test(line) ? 13 : -1]);
    }
    const exact = compileRegex("pattern", "ERROR|panic:");
    expect(exact.find?.("a\nb panic: b ERROR\nc", 0)).toBe(4);
    expect(exact.find?.("a\nerror\nc", 0)).toBe(-1);
    // U+0130 lowers to two characters: a word is still found, but its place is not told, so each line is a candidate
    expect(m.find?.("\u0130\nx\nfatal", 2)).toBe(2);
    const wide = compileLiteral("filter", "\u00e9t\u00e9", { ignoreCase: true });
    expect([wide.find, wide.screen?.("x\n\u00c9T\u00c9")]).toEqual([undefined, true]);
  });

  test("no screen where a block could differ from a line: \\A, \\z, multi-line turned off", () => {
    expect(compileRegex("pattern", "\\A\\d").screen).toBeUndefined();
    expect(compileRegex("pattern", "\\d\\z").screen).toBeUndefined();
    expect(compileRegex("pattern", "(?-m)^\\d").screen).toBeUndefined();
    expect(compileRegex("pattern", "(?i-m:^\\d)").screen).toBeUndefined();
    expect(compileRegex("pattern", "^\\d$").screen).toBeDefined();
    // a word every match holds screens whatever the anchors
    expect(compileRegex("pattern", "\\Aword\\z").find?.("a\nword", 0)).toBe(2);
  });
});

describe("compileLiteral", () => {
  test("nothing in the text is special", () => {
    const m = compileLiteral("filter", "GET /a.b?x=(1)");
    expect(m.test("... GET /a.b?x=(1) 200")).toBe(true);
    expect(m.test("GET /aXb?x=1 200")).toBe(false);
    expect(compileLiteral("filter", "\\1(?=").test("a \\1(?= b")).toBe(true);
  });

  test("long text is taken up to MAX_PATTERN_CHARS, and no further", () => {
    const text = "ab".repeat(MAX_PATTERN_CHARS / 2);
    expect(compileLiteral("filter", text).test(text)).toBe(true);
    expect(refusal(() => compileLiteral("filter", `${text}a`)).code).toBe("core.input.invalid");
  });
});

describe("compileGlob", () => {
  test("agrees with Bun.Glob on the globs people write", () => {
    const globs = ["*", "*.ts", "*.{ts,js}", "a?c", "[abc]*", "[!a]*", "[^a]*", "[a-c]x", "**", "{a,{b,c}}*", "a\\*"];
    const names = ["a.ts", "a.js", "b.tsx", ".hidden", "abc", "axc", "bx", "a*", "a", "c.md", "é.ts", "ñandú"];
    for (const g of globs)
      for (const n of names) expect([g, n, compileGlob("glob", g).test(n)]).toEqual([g, n, new Bun.Glob(g).match(n)]);
  });

  test("a leading ! matches what the rest does not; unclosed [ and { are plain; ? is one character", () => {
    expect(compileGlob("glob", "!*.ts").test("a.js")).toBe(true);
    expect(compileGlob("glob", "!*.ts").test("a.ts")).toBe(false);
    expect(compileGlob("glob", "[a-").test("[a-")).toBe(true);
    expect(compileGlob("glob", "{a,b").test("{a,b")).toBe(true);
    expect(compileGlob("glob", "?").test("😀")).toBe(true);
    expect(compileGlob("glob", "*").test("line\nbreak")).toBe(true);
    expect(compileGlob("glob", "(a|b)+").test("(a|b)+")).toBe(true);
    expect(compileGlob("glob", "(a|b)+").test("a")).toBe(false);
  });

  test("globs that backtrack elsewhere match in linear time", () => {
    const name = `${"a".repeat(250)}c`;
    expect(compileGlob("glob", `${"*a".repeat(40)}*b`).test(name)).toBe(false);
    expect(compileGlob("glob", `${"{a,aa}".repeat(40)}b`).test(name)).toBe(false);
  });

  test("a range the wrong way round and one too large are core.input.invalid, in the glob's own terms", () => {
    const e = refusal(() => compileGlob("name", "[z-a]"));
    expect(e.code).toBe("core.input.invalid");
    expect(e.message).toBe("name is not a glob rta can match: a set has a range the wrong way round");
    expect(refusal(() => compileGlob("name", "*a".repeat(1000))).code).toBe("core.input.invalid");
  });
});

test("the parts of re2js that core/pattern leans on beyond its typed surface are there (re2js is pinned)", () => {
  const re2 = RE2JS.compile("ERROR.*disk").re2() as unknown as {
    prog: { numInst(): number };
    dfa: { stateBudget: number; memBudget: number };
    prefilter: { type: number; subs: { type: number; str: string }[] };
  };
  expect(re2.prog.numInst()).toBeGreaterThan(0); // bounds the NFA's work per character
  expect(typeof re2.dfa.stateBudget).toBe("number"); // bounds the DFA's memory
  expect(typeof re2.dfa.memBudget).toBe("number");
  expect(re2.prefilter.type).toBe(2); // AND of the two words
  expect(re2.prefilter.subs.map((sub) => [sub.type, sub.str])).toEqual([
    [1, "ERROR"],
    [1, "disk"],
  ]);
});
