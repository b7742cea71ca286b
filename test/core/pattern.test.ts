import { describe, expect, test } from "bun:test";
import { RtaError } from "../../src/core/errors.ts";
import {
  compileGlob,
  compileLiteral,
  compileRegex,
  LINE_MATCH_CHARS,
  MAX_PATTERN_CHARS,
  SCREEN_BLOCK_CHARS,
} from "../../src/core/pattern.ts";

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
      if (!m.screen) throw new Error(`no screen for ${pattern}`);
      for (let b = 0; b < 20; b++) {
        const lines = Array.from({ length: 1 + next(5) }, () =>
          Array.from({ length: next(6) }, () => alphabet[next(alphabet.length)]).join(""),
        );
        const anyLine = lines.some((l) => m.test(l));
        const block = lines.join("\n");
        expect(block.length).toBeLessThanOrEqual(SCREEN_BLOCK_CHARS);
        const at = m.screen(block);
        if (anyLine && at === -1) throw new Error(`screen missed ${JSON.stringify(lines)} for ${pattern}`);
        // no line that ends before the place the screen names may match
        let start = 0;
        for (const l of lines) {
          if (start + l.length >= at) break;
          if (m.test(l)) throw new Error(`screen pointed past ${JSON.stringify(l)} for ${pattern}`);
          start += l.length + 1;
        }
        screened++;
      }
    }
    expect(screened).toBeGreaterThan(3000);
  });

  test("plain words are screened by substring search, case variants outside ASCII included", () => {
    const m = compileRegex("pattern", "desk|FATAL", { ignoreCase: true });
    expect(m.screenSaysWhere).toBe(true);
    for (const line of ["DESK", "de\u017f\u212a", "fAtAl", "Fata\u013e"]) {
      const block = `nothing here\n${line}\nnor here`;
      expect([line, m.screen?.(block)]).toEqual([line, m.test(line) ? 13 : -1]);
    }
    const exact = compileRegex("pattern", "ERROR|panic:");
    expect(exact.screen?.("a\nb panic: b ERROR\nc")).toBe(4);
    expect(exact.screen?.("a\nerror\nc")).toBe(-1);
    // U+0130 lowers to two characters: the screen still finds the word, but does not say where
    expect(m.screen?.("\u0130\nfatal")).toBe(0);
    const wide = compileLiteral("filter", "\u00e9t\u00e9", { ignoreCase: true });
    expect([wide.screen?.("x\n\u00c9T\u00c9"), wide.screenSaysWhere]).toEqual([0, false]);
    expect(compileRegex("pattern", "a.c").screenSaysWhere).toBe(false);
  });

  test("no screen where a block could differ from a line: \\A, \\z, multi-line turned off", () => {
    expect(compileRegex("pattern", "\\Aa").screen).toBeUndefined();
    expect(compileRegex("pattern", "a\\z").screen).toBeUndefined();
    expect(compileRegex("pattern", "(?-m)^a").screen).toBeUndefined();
    expect(compileRegex("pattern", "(?i-m:^a)").screen).toBeUndefined();
    expect(compileRegex("pattern", "^a$").screen).toBeDefined();
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
