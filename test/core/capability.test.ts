import { describe, expect, test } from "bun:test";
import { type CapabilityDecl, define, needsGrant } from "../../src/core/capability.ts";
import { object } from "../../src/core/result.ts";

const base: CapabilityDecl = {
  name: "demo.thing",
  summary: "a demo",
  safety: "read",
  inputs: {},
  result: { shape: "object" },
  examples: [],
  run: async () => object({}),
};

describe("define", () => {
  test("derives area, tool name and CLI words from the dotted name", () => {
    const cap = define({ ...base, name: "audit.kube.eol" });
    expect(cap.area).toBe("audit");
    expect(cap.tool).toBe("audit_kube_eol");
    expect(cap.words).toEqual(["audit", "kube", "eol"]);
  });

  test("refuses a name that is not area.thing[.action]", () => {
    for (const name of ["proc", "Proc.list", "proc.list.x.y", "proc_list", "proc..list", "1proc.list"]) {
      expect(() => define({ ...base, name })).toThrow(/not area\.thing/);
    }
  });

  test("refuses options on a non-string, a range on a non-number, and defaults the declaration refuses", () => {
    expect(() => define({ ...base, inputs: { n: { type: "integer", description: "n", options: ["a"] } } })).toThrow();
    expect(() => define({ ...base, inputs: { s: { type: "string", description: "s", range: [1, 2] } } })).toThrow();
    expect(() =>
      define({ ...base, inputs: { s: { type: "string", description: "s", options: ["a"], default: "b" } } }),
    ).toThrow(/options/);
    expect(() =>
      define({ ...base, inputs: { n: { type: "integer", description: "n", range: [1, 5], default: 9 } } }),
    ).toThrow(/range/);
    expect(() => define({ ...base, inputs: { "Bad-Name": { type: "string", description: "x" } } })).toThrow();
  });

  test("refuses a reaches that names no input", () => {
    expect(() => define({ ...base, reaches: "host" })).toThrow(/reaches/);
  });
});

describe("needsGrant", () => {
  test("a plain read is free; writes, destructive calls, reaching and revealing reads are not", () => {
    expect(needsGrant(define(base))).toBe(false);
    expect(needsGrant(define({ ...base, safety: "write" }))).toBe(true);
    expect(needsGrant(define({ ...base, safety: "destructive" }))).toBe(true);
    expect(needsGrant(define({ ...base, reveals: true }))).toBe(true);
    expect(
      needsGrant(define({ ...base, reaches: "host", inputs: { host: { type: "string", description: "h" } } })),
    ).toBe(true);
    expect(needsGrant(define({ ...base, offsite: "endoflife.date" }))).toBe(false);
  });
});
