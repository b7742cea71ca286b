import { describe, expect, test } from "bun:test";
import { loadPatterns } from "../../src/core/pattern.ts";
import { toolDigest, type UpstreamTool } from "../../src/upstreams/discover.ts";
import { schemaFault, validatorFor } from "../../src/upstreams/schemas.ts";

await loadPatterns();

function tool(inputSchema: Record<string, unknown>): UpstreamTool {
  const raw = { name: "t", inputSchema };
  return { ...raw, digest: toolDigest(raw) };
}

describe("an upstream tool's schema, checked at discovery and compiled on its first call", () => {
  test("a schema that would not compile is said at discovery, each for its own reason", () => {
    expect(schemaFault(tool({ type: "object", properties: { a: { type: "no-such-type" } } }))).toContain(
      "does not compile",
    );
    expect(schemaFault(tool({ type: "array" }))).toBe("its input schema is not an object's");
    // RE2 cannot take a backreference: the tool is left out, never matched by RegExp
    expect(schemaFault(tool({ type: "object", properties: { a: { type: "string", pattern: "(a)\\1" } } }))).toContain(
      "does not compile",
    );
    expect(schemaFault(tool({ type: "object", patternProperties: { "(?=x)": {} } }))).toContain("does not compile");
    // a reference that resolves nowhere is compiled whole at discovery, and found out
    expect(schemaFault(tool({ type: "object", properties: { a: { $ref: "#/$defs/none" } } }))).toContain(
      "does not compile",
    );
  });

  test("a sound schema passes; a pattern inside data (an enum, a default) is no pattern", () => {
    expect(schemaFault(tool({ type: "object", properties: { a: { type: "string", pattern: "^[a-z]+$" } } }))).toBe(
      undefined,
    );
    expect(
      schemaFault(
        tool({ type: "object", properties: { a: { enum: [{ pattern: "(a)\\1" }], default: { pattern: "(" } } } }),
      ),
    ).toBe(undefined);
    const ref = { type: "object", $defs: { s: { type: "string" } }, properties: { a: { $ref: "#/$defs/s" } } };
    expect(schemaFault(tool(ref))).toBe(undefined);
  });

  test("the check compiles on first use, and matches a pattern by RE2", () => {
    const t = tool({ type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } }, required: ["a"] });
    expect(schemaFault(t)).toBe(undefined);
    const validate = validatorFor(t);
    expect(validate({ a: "aaa" })).toBe(true);
    // linear in the argument: RegExp would hold the loop on this
    expect(validate({ a: `${"a".repeat(40)}!` })).toBe(false);
    expect(validate({ b: "x" })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: "additionalProperties" });
  });
});
