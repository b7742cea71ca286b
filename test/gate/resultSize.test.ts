/**
 * The cheap bound on a result's JSON size is never below the size itself,
 * whatever the value holds: escapes, characters outside the BMP, long
 * numbers, keys, undefined fields and holes.
 */
import { describe, expect, test } from "bun:test";
import { jsonSize, jsonSizeAtMost } from "../../src/gate/resultSize.ts";

const values: unknown[] = [
  "",
  "plain",
  '\u0000\u0001\u001f"\\',
  "\n\t\r\b\f",
  "é漢字",
  "😀😀",
  "\ud800",
  "\u2028\u2029",
  -1.2345678901234567e-308,
  Number.MAX_VALUE,
  -0,
  Number.NaN,
  null,
  true,
  false,
  [],
  {},
  [undefined, null, 1],
  { a: undefined, b: 1 },
  { "\u0000key": "\u0001", [String.fromCharCode(0x1f)]: ["\u001f".repeat(1000)] },
  { type: "text", text: "x".repeat(4096) },
  {
    type: "table",
    columns: ["a", "b"],
    rows: [
      [1, "\u0000"],
      [Number.MIN_VALUE, "😀"],
    ],
    total: 2,
  },
  // biome-ignore lint/suspicious/noSparseArray: a hole is written as null
  [1, , 3],
];

describe("jsonSizeAtMost", () => {
  for (const v of values) {
    test(`is at least the exact size: ${JSON.stringify(v)?.slice(0, 40)}`, () => {
      const exact = Buffer.byteLength(JSON.stringify(v) ?? "");
      expect(jsonSize(v)).toBe(exact);
      expect(jsonSizeAtMost(v)).toBeGreaterThanOrEqual(exact);
    });
  }

  test("stops once past its limit, with a figure past it", () => {
    const big = { rows: Array.from({ length: 100_000 }, (_, i) => `row ${i}`) };
    expect(jsonSizeAtMost(big, 1000)).toBeGreaterThan(1000);
    expect(jsonSizeAtMost({ a: "x".repeat(200), b: big }, 1000)).toBeGreaterThan(1000);
  });

  test("a text far within the budget is told so without measuring it exactly", () => {
    expect(jsonSizeAtMost({ type: "text", text: "x".repeat(4096) }, 80 * 1024)).toBeLessThanOrEqual(80 * 1024);
  });
});
