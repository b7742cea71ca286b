import { describe, expect, test } from "bun:test";
import { loadPatterns } from "../../src/core/pattern.ts";
import { toolDigest, type UpstreamTool } from "../../src/upstreams/discover.ts";
import { MAX_SUBSCHEMAS, schemaFault, validatorFor } from "../../src/upstreams/schemas.ts";

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
    // a property named as a keyword that holds data (enum, default) is a schema all the same: its pattern is checked
    for (const name of ["enum", "default", "const", "examples"])
      expect(
        schemaFault(tool({ type: "object", properties: { [name]: { type: "string", pattern: "(a)\\1" } } })),
      ).toContain("does not compile");
    expect(schemaFault(tool({ type: "object", $defs: { default: { type: "string", pattern: "(?!x)" } } }))).toContain(
      "does not compile",
    );
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

  test("an enum and uniqueItems are checked in time linear in them, with ajv's meaning", () => {
    // ajv's meta-schema check of a draft-07 enum compared each value with every other: 400,000 held a start for minutes
    const many = Array.from({ length: 400_000 }, (_, i) => i);
    const big = tool({ type: "object", properties: { a: { type: "array", items: { enum: many } } } });
    expect(schemaFault(big)).toBe(undefined);
    const inBig = validatorFor(big);
    expect(inBig({ a: Array.from({ length: 10_000 }, () => 399_999) })).toBe(true);
    expect(inBig({ a: [400_000] })).toBe(false);
    expect(schemaFault(tool({ type: "object", properties: { a: { enum: [1, 2, 1] } } }))).toContain("does not compile");
    expect(schemaFault(tool({ type: "object", properties: { a: { enum: [] } } }))).toContain("does not compile");

    const values = tool({ type: "object", properties: { a: { enum: [{ x: 1, y: [2] }, "1", null] } } });
    const enumOf = validatorFor(values);
    expect(enumOf({ a: { y: [2], x: 1 } })).toBe(true);
    expect(enumOf({ a: "1" })).toBe(true);
    expect(enumOf({ a: null })).toBe(true);
    expect(enumOf({ a: 1 })).toBe(false);
    expect(enumOf({ a: { x: 1, y: [2], z: 0 } })).toBe(false);

    const unique = validatorFor(tool({ type: "object", properties: { a: { type: "array", uniqueItems: true } } }));
    expect(unique({ a: Array.from({ length: 10_000 }, (_, i) => [i]) })).toBe(true);
    expect(
      unique({
        a: [
          { p: 1, q: 2 },
          { q: 2, p: 1 },
        ],
      }),
    ).toBe(false);
    expect(unique({ a: [1, "1", [1], { 1: 1 }] })).toBe(true);
    expect(unique({ a: [0, -0] })).toBe(false);
  });
});

describe("an upstream schema's cost is capped before ajv compiles it, and its references stay inside it", () => {
  const props = (n: number, extra: Record<string, unknown> = {}) => ({
    type: "object",
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: "string" }])),
    definitions: { x: { type: "string" } },
    ...extra,
  });

  test("a schema past the cap is left out with why, at once: no compile, nothing on stderr", () => {
    const write = process.stderr.write;
    let said = "";
    process.stderr.write = ((chunk: string) => {
      said += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      const costly = [
        props(4000, { properties: { ...props(4000).properties, r: { $ref: "#/definitions/x" } } }),
        { type: "object", allOf: Array.from({ length: 2000 }, (_, i) => ({ not: { const: i } })) },
        // nested as deep as JSON goes: the walk stops at the cap, never at the stack's end
        JSON.parse(`${'{"type":"object","properties":{"a":'.repeat(1500)}{}${"}}".repeat(1500)}`),
        { type: "object", "x-list": JSON.parse(`${"[".repeat(1500)}${"]".repeat(1500)}`) },
      ];
      // one within the cap that does not compile: ajv's logger would print on stderr
      expect(schemaFault(tool({ type: "object", properties: { a: { $ref: "#/definitions/none" } } }))).toContain(
        "does not compile",
      );
      for (const schema of costly) {
        expect(schemaFault(tool(schema))).toBe(
          `its input schema is too large to check: more than ${MAX_SUBSCHEMAS} subschemas`,
        );
      }
    } finally {
      process.stderr.write = write;
    }
    // counted, never compiled: compiling would have printed what ajv generated, had its logger been on
    expect(said).toBe("");
  });

  test("a schema at the cap, with a local reference, compiles and checks its arguments", () => {
    const within = tool(props(MAX_SUBSCHEMAS - 5, { properties: { r: { $ref: "#/definitions/x" } } }));
    expect(schemaFault(within)).toBeUndefined();
    const validate = validatorFor(within);
    expect(validate({ r: "text" })).toBe(true);
    expect(validate({ r: 5 })).toBe(false);
  });

  test("a reference outside the schema leaves the tool out, said; one that resolves nowhere does too", () => {
    for (const ref of ["https://schemas.example.com/x.json", "other.json#/x", "file:///etc/passwd"])
      expect(schemaFault(tool({ type: "object", properties: { a: { $ref: ref } } }))).toContain(
        "its input schema refers outside itself",
      );
    expect(schemaFault(tool({ type: "object", properties: { a: { $ref: "#/definitions/none" } } }))).toContain(
      "does not compile",
    );
  });
});

describe("an upstream schema's patterns are matched within a budget for each call", () => {
  const costly = "^(?:[ab]*a[ab]{100}){4}$";
  const long = (n: number) => "a".repeat(n);

  test("an argument too long for its pattern's budget is refused without being matched, saying why", () => {
    const t = tool({ type: "object", properties: { s: { type: "string", pattern: costly } } });
    const validate = validatorFor(t);
    expect(validate({ s: long(1000) })).toBe(true);
    // a 1 MiB argument held the server 9 s in RE2's NFA; it is refused before any of it is matched
    expect(validate({ s: long(1024 * 1024) })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: "rta.patternBudget" });
    // the budget is each call's: the next is matched afresh
    expect(validate({ s: long(1000) })).toBe(true);
  });

  test("many arguments share one call's budget, and a `not` cannot turn a spent budget into a pass", () => {
    const items = tool({
      type: "object",
      properties: { l: { type: "array", items: { type: "string", pattern: costly } } },
    });
    const many = validatorFor(items);
    expect(many({ l: Array.from({ length: 5 }, () => long(1000)) })).toBe(true);
    expect(many({ l: Array.from({ length: 2000 }, () => long(4000)) })).toBe(false);
    expect(many.errors?.[0]).toMatchObject({ keyword: "rta.patternBudget" });

    const not = validatorFor(tool({ type: "object", properties: { s: { not: { type: "string", pattern: "x" } } } }));
    expect(not({ s: "axa" })).toBe(false);
    expect(not({ s: `${"a".repeat(10 * 1024 * 1024)}x` })).toBe(false);
    expect(not.errors?.[0]).toMatchObject({ keyword: "rta.patternBudget" });
  });

  test("a simple pattern matches a long argument within the budget", () => {
    const b64 = validatorFor(
      tool({ type: "object", properties: { s: { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" } } }),
    );
    expect(b64({ s: "QUJD".repeat(250_000) })).toBe(true);
  });
});
