/** The read templates and their strict parser, in process. */
import { expect, test } from "bun:test";
import { ProtocolError } from "@modelcontextprotocol/server";
import { define } from "../../src/core/capability.ts";
import { Catalogue } from "../../src/core/catalogue.ts";
import { object, text } from "../../src/core/result.ts";
import { toolListings } from "../../src/mcp/describe.ts";
import { MAX_URI_BYTES, parseReadUri, plainEntries, readTemplates, templateEntries } from "../../src/mcp/templates.ts";

const run = async () => object({});
const caps = [
  define({
    name: "orders.between",
    summary: "Orders between two days",
    safety: "read",
    inputs: {
      to: { type: "string", description: "last day", required: true },
      from: { type: "string", description: "first day", required: true },
      status: { type: "string", description: "which", options: ["open", "shipped"] },
      limit: { type: "integer", description: "how many" },
      ratio: { type: "number", description: "a ratio" },
      all: { type: "boolean", description: "every one" },
      secret_dir: { type: "string", description: "operator's", operatorOnly: true },
    },
    result: { shape: "table" },
    examples: [],
    run,
  }),
  define({
    name: "orders.show",
    summary: "One order as text",
    safety: "read",
    inputs: { id: { type: "string", description: "the order", required: true } },
    result: { shape: "text" },
    examples: [],
    run: async () => text("x"),
  }),
  define({
    name: "orders.summary",
    summary: "Totals",
    safety: "read",
    inputs: { days: { type: "integer", description: "how far back" } },
    result: { shape: "object" },
    examples: [],
    run,
  }),
  define({
    name: "orders.cancel",
    summary: "Cancel an order",
    safety: "write",
    inputs: { id: { type: "string", description: "the order", required: true } },
    result: { shape: "object" },
    examples: [],
    run,
  }),
];
const catalogue = new Catalogue(caps);
const templates = readTemplates(catalogue, toolListings(catalogue));

function refused(uri: string): ProtocolError {
  try {
    parseReadUri(uri, templates);
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).code).toBe(-32602);
    return e as ProtocolError;
  }
  throw new Error(`${uri} was not refused`);
}

test("required in the path and optional in the query, each in name order; no write, no operator-only input", () => {
  expect(templateEntries(templates).map((t) => [t.uriTemplate, t.mimeType])).toEqual([
    ["rta://orders/between/{from}/{to}{?all,limit,ratio,status}", "application/json"],
    ["rta://orders/show/{id}", "text/plain"],
    ["rta://orders/summary{?days}", "application/json"],
  ]);
  expect(plainEntries(templates).map((r) => r.uri)).toEqual(["rta://orders/summary"]);
});

test("a URI reads back as typed arguments, percent-decoded", () => {
  const read = parseReadUri(
    "rta://orders/between/2026-01-01/2026%2F02%2F01?status=open&limit=5&ratio=-1.5e2&all=true",
    templates,
  );
  expect(read?.template.cap.name).toBe("orders.between");
  expect(read?.args).toEqual({
    from: "2026-01-01",
    to: "2026/02/01",
    status: "open",
    limit: 5,
    ratio: -150,
    all: true,
  });
  expect(parseReadUri("rta://orders/summary", templates)?.args).toEqual({});
  expect(parseReadUri("rta://orders/summary?", templates)?.args).toEqual({});
  expect(parseReadUri("rta://orders/show/%E2%9C%93%09%0A", templates)?.args).toEqual({ id: "✓\t\n" });
});

test("a URI that names no read template is not the parser's", () => {
  expect(parseReadUri("rta://grants", templates)).toBeUndefined();
  expect(parseReadUri("rta://capability/orders.show", templates)).toBeUndefined();
  expect(parseReadUri("rta://orders/cancel/1", templates)).toBeUndefined();
  expect(parseReadUri("file:///etc/passwd", templates)).toBeUndefined();
});

test("unknown, repeated, valueless and path parameters are refused, each named", () => {
  const e = refused("rta://orders/summary?days=1&days=2&colour=red&verbose");
  expect(e.message).toContain("days is given more than once");
  expect(e.message).toContain('"colour" is not a parameter of rta://orders/summary{?days}');
  expect(e.data).toMatchObject({ fields: { days: "is given more than once", verbose: expect.any(String) } });
  expect(refused("rta://orders/show/1?id=2").message).toContain("is a path segment of");
  // one mistake made twice is said once
  expect(refused("rta://orders/summary?&").message).toBe('"" is not a parameter of rta://orders/summary{?days}');
  // a name that is an object's own key in JS is only a name
  expect(refused("rta://orders/summary?__proto__=1").message).toContain('"__proto__" is not a parameter');
});

test("a segment count that differs is refused", () => {
  expect(refused("rta://orders/show").message).toContain(
    "takes 1 path segment after rta://orders/show, this URI has 0",
  );
  expect(refused("rta://orders/show/a/b").message).toContain("this URI has 2");
  expect(refused("rta://orders/between/a").message).toContain("takes 2 path segments");
  expect(refused("rta://orders/summary/x").message).toContain("takes 0 path segments");
  expect(refused("rta://orders/show/a#b").message).toContain("fragment");
});

test("values are converted by the schema, with a message per field", () => {
  const e = refused("rta://orders/between/a/b?limit=1.5&ratio=abc&all=yes&status=lost");
  expect(e.data).toMatchObject({
    fields: {
      limit: '"1.5" is not an integer',
      ratio: '"abc" is not a number',
      all: '"yes" is not true or false',
      status: '"lost" is not one of open, shipped',
    },
  });
  expect(refused("rta://orders/summary?days=99999999999999999999").message).toContain("is not an integer");
  expect(refused("rta://orders/summary?days=").message).toContain('"" is not an integer');
  expect(refused("rta://orders/show/%E0%A4%A").message).toContain("is not valid percent-encoding");
});

test("2 KiB at most, and the refusal does not echo the whole URI", () => {
  const ok = `rta://orders/show/${"a".repeat(MAX_URI_BYTES - "rta://orders/show/".length)}`;
  expect(parseReadUri(ok, templates)?.args.id).toHaveLength(MAX_URI_BYTES - "rta://orders/show/".length);
  const e = refused(`${ok}b`);
  expect(e.message).toBe("the URI is 2049 bytes, over 2048");
  expect(JSON.stringify(e.data).length).toBeLessThan(200);
  // counted in bytes, not characters
  refused(`rta://orders/show/${"é".repeat(1100)}`);
});
