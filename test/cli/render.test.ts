import { expect, test } from "bun:test";
import { Chalk } from "chalk";
import { renderHuman } from "../../src/cli/render.ts";
import { table } from "../../src/core/result.ts";

const plain = new Chalk({ level: 0 });

test("a table aligns its columns and formats units; what was cut is not said in it", () => {
  const out = renderHuman(
    table(
      ["mount", "size", "use%"],
      [
        ["/", 1536, 22],
        ["/boot", null, 5],
      ],
      3,
    ),
    plain,
    {
      columns: [
        { name: "size", doc: "", unit: "bytes" },
        { name: "use%", doc: "", unit: "percent" },
      ],
    },
  );
  // "showing 2 of 3" is a note on stderr, said by printResult, not part of the table
  expect(out).toBe("MOUNT  SIZE     USE%\n/      1.5 KiB  22%\n/boot  -        5%\n");
});

test("an object nests, joins arrays, and marks an empty value", () => {
  const out = renderHuman(
    { type: "object", value: { a: 1, list: [1, 2], inner: { b: "x" }, none: null, empty: {} } },
    plain,
  );
  expect(out).toBe("a      1\nlist   1, 2\ninner\n  b  x\nnone   -\nempty  -\n");
});

test("a tree and a chart are drawn", () => {
  const tree = renderHuman(
    {
      type: "tree",
      root: {
        name: "/",
        children: [
          { name: "a", children: [{ name: "b" }] },
          { name: "c", value: 3 },
        ],
      },
    },
    plain,
  );
  expect(tree).toBe("/\n├─ a\n│  └─ b\n└─ c: 3\n");
  const chart = renderHuman(
    {
      type: "chart",
      unit: "ms",
      series: [
        {
          name: "rtt",
          points: [
            ["a", 10],
            ["b", 5],
          ],
        },
      ],
    },
    plain,
  );
  expect(chart).toContain("rtt (ms)");
  expect(chart).toContain(`${"█".repeat(40)} 10`);
  expect(chart).toContain(`${"█".repeat(20)} 5`);
});

test("text ends with a newline; an empty text prints nothing, as cat does", () => {
  expect(renderHuman({ type: "text", text: "hi" }, plain)).toBe("hi\n");
  expect(renderHuman({ type: "text", text: "" }, plain)).toBe("");
});

test("a time column or field is an age against the clock it is given; text that is no time is shown as it is", () => {
  const now = Date.parse("2026-12-01T15:00:00Z");
  const out = renderHuman(
    table(
      ["name", "modified"],
      [
        ["a", "2026-11-28T14:00:00Z"],
        ["b", "2026-12-01T14:59:30Z"],
        ["c", "2026-12-01T16:00:00Z"],
        ["d", "soon"],
        ["e", null],
      ],
    ),
    plain,
    { columns: [{ name: "modified", doc: "", unit: "time" }], now },
  );
  expect(out).toBe("NAME  MODIFIED\na     3d ago\nb     30s ago\nc     in 1h\nd     soon\ne     -\n");
  const obj = renderHuman({ type: "object", value: { name: "k", modified: "2026-12-01T14:45:00.000Z" } }, plain, {
    fields: [{ name: "modified", doc: "", unit: "time" }],
    now,
  });
  expect(obj).toBe("name      k\nmodified  15m ago\n");
});
