import { describe, expect, test } from "bun:test";
import { jwtDecode } from "../../src/capabilities/jwt/decode.ts";
import { procList } from "../../src/capabilities/proc/list.ts";
import { define } from "../../src/core/capability.ts";
import { object } from "../../src/core/result.ts";
import { publishedSchema, shapeSchema } from "../../src/core/schema.ts";

describe("published schema", () => {
  test("carries types, descriptions, options as enum, ranges and defaults", () => {
    const s = publishedSchema(procList, "agent");
    expect(s.type).toBe("object");
    expect(s).not.toHaveProperty("additionalProperties");
    expect(s.properties.sort).toMatchObject({ type: "string", enum: ["cpu", "mem", "pid"], default: "cpu" });
    expect(s.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 1000, default: 50 });
    expect(s.required).toBeUndefined();
  });

  test("a fromPipe input is required over MCP, and not on the CLI beyond its declaration", () => {
    expect(publishedSchema(jwtDecode, "agent").required).toEqual(["token"]);
  });

  test("operator-only inputs are absent from the agent's schema and present for the person", () => {
    const cap = define({
      name: "demo.reach",
      summary: "d",
      safety: "read",
      inputs: {
        name: { type: "string", description: "n" },
        server: { type: "string", description: "s", operatorOnly: true },
      },
      result: { shape: "object" },
      examples: [],
      run: async () => object({}),
    });
    expect(Object.keys(publishedSchema(cap, "agent").properties)).toEqual(["name"]);
    expect(Object.keys(publishedSchema(cap, "person").properties)).toEqual(["name", "server"]);
  });
});

describe("shape schema", () => {
  test("checks types and unknown arguments only: options, ranges and required are the declaration's", () => {
    const s = shapeSchema(procList, "agent");
    expect(s.properties).toEqual({ sort: { type: "string" }, limit: { type: "integer" } });
    expect(s.required).toBeUndefined();
    expect(s.$schema).toContain("2020-12");
  });
});
