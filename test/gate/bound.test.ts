import { describe, expect, test } from "bun:test";
import type { RtaError } from "../../src/core/errors.ts";
import type { Scalar, TableResult } from "../../src/core/result.ts";
import { agentLimits, bound, MODEL_BUDGET_BYTES, TableWriter, UNBOUNDED } from "../../src/gate/bound.ts";
import { jsonSize } from "../../src/gate/resultSize.ts";

const MiB = 1024 * 1024;
const row = (i: number): Scalar[] => [i, `process-${i}`, i * 1.5, "x".repeat(100)];
const bigTable = (n: number): TableResult => ({
  type: "table",
  columns: ["pid", "name", "cpu", "pad"],
  rows: Array.from({ length: n }, (_, i) => row(i)),
  total: n,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as RtaError).code;
  }
  return undefined;
}

describe("jsonSize", () => {
  test("equals the length of JSON.stringify for every kind of value", () => {
    const values: unknown[] = [
      { a: 1, b: "two", c: [true, false, null], d: { e: 'ü"\\\n', f: -1.5e-7 } },
      [],
      {},
      "plain",
      "émoji 🎉 and \u0001",
      { skip: undefined, keep: 1 },
      bigTable(20),
    ];
    for (const v of values) expect(jsonSize(v)).toBe(Buffer.byteLength(JSON.stringify(v)));
  });

  test("stops early once past the limit", () => {
    const t = bigTable(100_000);
    const early = jsonSize(t, 1000);
    expect(early).toBeGreaterThan(1000);
    expect(early).toBeLessThan(jsonSize(t) / 10);
  });
});

describe("the model budget", () => {
  test("a table past 80 KiB is cut to its first rows, keeps its true total, and says so", () => {
    const out = bound(bigTable(5000), agentLimits()) as TableResult;
    expect(out.total).toBe(5000);
    expect(out.rows.length).toBeGreaterThan(100);
    expect(out.rows.length).toBeLessThan(5000);
    expect(out.rows[0]).toEqual(row(0));
    expect(out.warning?.code).toBe("core.mcp.result.cut");
    expect(out.warning?.message).toContain(`first ${out.rows.length} of 5000`);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(MODEL_BUDGET_BYTES);
  });

  test("a table the capability warned about keeps its warnings when cut, and still fits the budget", () => {
    const said = [
      { code: "fs.walk.skipped", message: "2 entries could not be read (permission denied) and were skipped" },
    ];
    const cut = bound({ ...bigTable(5000), warnings: said }, agentLimits()) as TableResult;
    expect(cut.warnings).toEqual(said);
    expect(cut.warning?.code).toBe("core.mcp.result.cut");
    expect(cut.total).toBe(5000);
    expect(jsonSize(cut)).toBeLessThanOrEqual(MODEL_BUDGET_BYTES);
  });

  test("a log keeps its last rows", () => {
    const log = { ...bigTable(5000), type: "log" as const };
    const out = bound(log, agentLimits()) as TableResult;
    expect(out.rows.at(-1)).toEqual(row(4999));
    expect(out.warning?.message).toContain("last");
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(MODEL_BUDGET_BYTES);
  });

  test("a text ends on a line saying how much was left out", () => {
    const text = "é".repeat(100_000);
    const out = bound({ type: "text", text }, agentLimits());
    if (out.type !== "text") throw new Error("expected text");
    expect(out.text).toMatch(/\n\[\d+ more bytes left out of 200000: ask for a narrower range to see them\]$/);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(MODEL_BUDGET_BYTES);
    expect(out.text.includes("\uFFFD")).toBe(false);
  });

  test("a tree or chart past 80 KiB is refused as core.mcp.result.toolarge", () => {
    const tree = {
      type: "tree" as const,
      root: { name: "/", children: Array.from({ length: 5000 }, (_, i) => ({ name: `node-${i}-${"y".repeat(20)}` })) },
    };
    expect(codeOf(() => bound(tree, agentLimits()))).toBe("core.mcp.result.toolarge");
    const chart = {
      type: "chart" as const,
      unit: "ms",
      series: [{ name: "s", points: Array.from({ length: 20_000 }, (_, i): [Scalar, number] => [i, i]) }],
    };
    expect(codeOf(() => bound(chart, agentLimits()))).toBe("core.mcp.result.toolarge");
  });

  test("what fits is passed through untouched", () => {
    const small = bigTable(10);
    expect(bound(small, agentLimits())).toBe(small);
  });
});

describe("the hard bound", () => {
  test("a result past --max-result is core.result.toolarge, with size, limit and how to ask for less", () => {
    let err: RtaError | undefined;
    try {
      bound(bigTable(20_000), agentLimits(1));
    } catch (e) {
      err = e as RtaError;
    }
    expect(err?.code).toBe("core.result.toolarge");
    expect(err?.message).toMatch(/at least \d+\.\d MiB, over the 1 MiB limit/);
    expect(err?.hint).toContain("ask for less");
  });

  test("a writer refuses as soon as the rows pass it, without holding them", () => {
    const w = new TableWriter(["pid", "name", "cpu", "pad"], "table", agentLimits(1));
    let added = 0;
    const code = codeOf(() => {
      for (let i = 0; i < 1_000_000; i++, added++) w.add(row(i));
    });
    expect(code).toBe("core.result.toolarge");
    expect(added).toBeLessThan(10_000);
  });

  test("a person is not bounded", () => {
    const t = bigTable(20_000);
    expect(bound(t, UNBOUNDED)).toBe(t);
    const w = new TableWriter(["a"], "table", UNBOUNDED);
    for (let i = 0; i < 50_000; i++) w.add([i]);
    const out = w.finish() as TableResult;
    expect(out.rows).toHaveLength(50_000);
    expect(out.warning).toBeUndefined();
    expect(jsonSize(t)).toBeGreaterThan(MiB);
  });

  test("a writer's finish takes a larger total from the capability", () => {
    const w = new TableWriter(["a"], "table", agentLimits());
    w.add([1]);
    expect(w.finish(40)).toMatchObject({ rows: [[1]], total: 40 });
  });
});
