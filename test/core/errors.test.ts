import { describe, expect, test } from "bun:test";
import { asRtaError, codes, Exit, isCode, RtaError } from "../../src/core/errors.ts";

describe("the code catalogue", () => {
  test("every code has a doc line and an exit status from the one table", () => {
    const exits = new Set<number>(Object.values(Exit));
    for (const [code, entry] of Object.entries(codes)) {
      expect(code).toMatch(/^[a-z]+(\.[a-z]+)+$/);
      expect(entry.doc.length).toBeGreaterThan(10);
      expect(exits.has(entry.exit)).toBe(true);
    }
  });

  test("an error takes its exit status from its code", () => {
    expect(new RtaError("core.input.range", "x").exit).toBe(Exit.usage);
    expect(new RtaError("core.internal", "x").exit).toBe(Exit.failure);
  });

  test("isCode knows catalogued codes only", () => {
    expect(isCode("core.input.option")).toBe(true);
    expect(isCode("core.made.up")).toBe(false);
    expect(isCode("toString")).toBe(false);
  });
});

describe("asRtaError", () => {
  test("keeps an RtaError as it is", () => {
    const err = new RtaError("jwt.malformed", "malformed token: x", "hint");
    expect(asRtaError(err)).toBe(err);
  });

  test("makes anything else bare, so internals never leak", () => {
    const err = asRtaError(new Error("ENOENT: /home/secret/.local/share/rta/kv.age"));
    expect(err.code).toBe("core.internal");
    expect(err.message).not.toContain("secret");
    expect(err.hint).toContain("RTA_DEBUG=1");
    expect(asRtaError("a string").code).toBe("core.internal");
  });
});
