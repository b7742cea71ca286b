/**
 * The operator's view fits each line to the terminal's columns, not to its characters: an agent's argument of wide
 * characters (CJK, emoji) would otherwise wrap, and the screen would scroll the pending consents out of sight.
 */
import { describe, expect, test } from "bun:test";
import { fit } from "../../src/cli/operatorScreen.ts";

describe("fit", () => {
  test("cuts and pads by columns, wide characters counted twice", () => {
    for (const text of ["界".repeat(50), `path=${"🙂".repeat(60)}`, "a界".repeat(30), "short 界"])
      for (const width of [20, 79, 80]) expect(Bun.stringWidth(fit(text, width))).toBe(width);
  });

  test("keeps a line that fits as it is, padded", () => {
    expect(fit("abc", 5)).toBe("abc  ");
    expect(fit("a\x1b[2Jb", 12)).toBe("a\\x1b[2Jb   ");
  });
});
