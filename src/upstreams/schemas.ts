/**
 * An upstream tool's input schema: its shape checked cheaply when it is
 * discovered (a schema that would not compile leaves only that tool out),
 * and compiled by ajv on the tool's first call, each `pattern` matched by
 * RE2, never by RegExp.
 */
import type Ajv from "ajv";
import { canonical } from "../core/canonical.ts";
import type { Validate } from "../core/catalogue.ts";
import { LINE_MATCH_CHARS, loadPatternsNow, MAX_PROGRAM_INSTRUCTIONS, schemaPattern } from "../core/pattern.ts";
import type { UpstreamTool } from "./discover.ts";

/**
 * One ajv per draft, made on first use (making one costs tens of ms): no
 * formats checked, no schema kept by its $id, and each `pattern` matched by
 * RE2 (loaded before a schema is compiled), never by RegExp. ajv's code is
 * loaded only then too: a person's command that compiles no schema never pays for it.
 */
const ajvs: { draft7?: Ajv; draft2020?: Ajv } = {};
const regExp = Object.assign((pattern: string) => metered(schemaPattern(pattern)), { code: "rta.schemaPattern" });

/**
 * What the patterns of a tool's schema may spend on one call's arguments:
 * characters matched times the matching pattern's RE2 instructions. RE2 is
 * linear in the text, but steps up to its whole program (1,000 instructions)
 * a character: a 1 MiB argument under ^(?:[ab]*a[ab]{100}){4}$ held the
 * server 9 s. This much is what four lines of a search may cost (some
 * tenths of a second at worst); a simple pattern of 10 instructions matches
 * 1.6 million characters in it.
 */
export const PATTERN_BUDGET = 4 * LINE_MATCH_CHARS * MAX_PROGRAM_INSTRUCTIONS;
/** What is left of PATTERN_BUDGET for the call being checked. */
const spend = { left: PATTERN_BUDGET };
/** Thrown through ajv's check when a match would pass the budget: the check ends, neither true nor false (a `not`). */
const OVER = new Error("the patterns' budget is spent");

/** A pattern matched only while the call's budget holds what it may cost; past it, the check ends (OVER). */
function metered(p: ReturnType<typeof schemaPattern>): { test(text: string): boolean; toString(): string } {
  return {
    test: (text) => {
      const cost = text.length * Math.max(p.size, 1);
      if (cost > spend.left) throw OVER;
      spend.left -= cost;
      return p.test(text);
    },
    toString: () => p.toString(),
  };
}

/** The ajv for the draft a schema names (2020-12, or draft-07 by default). */
function ajvFor(schema: Record<string, unknown>): Ajv {
  const options = {
    strict: false,
    allErrors: false,
    validateFormats: false,
    addUsedSchema: false,
    // its default logger prints what it generated to stderr when a compile fails: megabytes for a large schema
    logger: false,
    code: { regExp },
  } as const;
  const draft = typeof schema.$schema === "string" ? schema.$schema : "";
  loadPatternsNow();
  if (draft.includes("2020-12")) {
    ajvs.draft2020 ??= linear(new (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).default(options));
    return ajvs.draft2020;
  }
  ajvs.draft7 ??= linear(new (require("ajv") as typeof import("ajv")).default(options));
  return ajvs.draft7;
}

/**
 * `ajv` with `uniqueItems` and `enum` checked in time linear in the data:
 * ajv's own compare each item with every other (or every allowed value), so
 * a draft-07 schema's enum of 400,000 values held a server's start for
 * minutes in its check against the meta-schema (whose enum is uniqueItems),
 * and an argument of 10,000 items would be compared with each of them. Each
 * value is taken by its canonical JSON, which is equal exactly where ajv's
 * deep equality is for JSON data.
 */
function linear(ajv: Ajv): Ajv {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword({
    keyword: "uniqueItems",
    type: "array",
    schemaType: "boolean",
    validate: (unique: boolean, data: unknown[]) => !unique || new Set(data.map(canonical)).size === data.length,
  });
  ajv.removeKeyword("enum");
  ajv.addKeyword({
    keyword: "enum",
    schemaType: "array",
    compile: (values: unknown[]) => {
      if (values.length === 0) throw new Error("enum must have non-empty array");
      const allowed = new Set(values.map(canonical));
      return (data: unknown) => allowed.has(canonical(data));
    },
  });
  return ajv;
}

type Check = ((data: unknown) => boolean) & { errors?: unknown };

/** Each schema compiled (or why it does not compile), by its tool's digest: compiled once in a process. */
const compiledBy = new Map<string, Check | string>();

function compiled(tool: UpstreamTool): Check | string {
  let c = compiledBy.get(tool.digest);
  if (c === undefined) {
    c = compileNow(tool.inputSchema);
    compiledBy.set(tool.digest, c);
  }
  return c;
}

function compileNow(schema: Record<string, unknown>): Check | string {
  if (schema.type !== "object") return "its input schema is not an object's";
  try {
    return ajvFor(schema).compile(schema) as unknown as Check;
  } catch (err) {
    return doesNotCompile((err as Error).message);
  }
}

/** Each schema's fault as its shape was checked (none: "") by its tool's digest. */
const faultBy = new Map<string, string>();

/**
 * Why a tool's input schema would not compile; undefined when it would.
 * Checked cheaply, as a discovery of 10,000 tools must be (compiling each
 * costs a millisecond, checking its shape some microseconds): against its
 * draft's meta-schema, each `pattern` and `patternProperties` key compiled to
 * RE2. A schema with a `$ref` (which may not resolve) is compiled whole. A
 * tool's check is compiled on its first call. Refuses nothing.
 */
export function schemaFault(tool: UpstreamTool): string | undefined {
  let fault = faultBy.get(tool.digest);
  if (fault === undefined) {
    fault = shapeFault(tool) ?? "";
    faultBy.set(tool.digest, fault);
  }
  return fault === "" ? undefined : fault;
}

function shapeFault(tool: UpstreamTool): string | undefined {
  const schema = tool.inputSchema;
  if (schema.type !== "object") return "its input schema is not an object's";
  const ajv = ajvFor(schema);
  let refs = false;
  try {
    // its size first: what is past the cap is checked no further, by the meta-schema or ajv
    refs = walk(schema, false, { left: MAX_SUBSCHEMAS });
    // the meta-schema's own patterns ($anchor's) spend a budget of their own, afresh for each schema
    spend.left = PATTERN_BUDGET;
    if (ajv.validateSchema(schema) !== true) return doesNotCompile(ajv.errorsText(ajv.errors, { separator: "; " }));
  } catch (err) {
    if (err instanceof Costly) return err.message;
    return doesNotCompile((err as Error).message);
  }
  if (!refs) return undefined;
  const c = compiled(tool);
  return typeof c === "string" ? c : undefined;
}

function doesNotCompile(why: string): string {
  return `its input schema does not compile: ${why.split("\n")[0]?.slice(0, 200)}`;
}

/** Values that are data, not schemas: a "pattern" inside one is no pattern. */
const DATA = new Set(["enum", "const", "default", "examples"]);

/** Keywords whose value maps names (a property's, a definition's) to schemas: a property named `enum` is no enum. */
const NAMED = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

/**
 * The most subschemas a tool's input schema may hold. ajv's compile time grows
 * faster than the schema: 500 properties compile in some 150 ms, 2,000 in
 * 1-5 s (an `allOf` of 2,000 `not`s in 3-7 s), 4,000 in 12-15 s and overflow
 * its stack. Tools offered to a model rarely hold more than some tens.
 */
export const MAX_SUBSCHEMAS = 500;

/** A schema too costly to compile, or reaching outside itself: its message is the tool's fault as it is. */
class Costly extends Error {}

/**
 * Compiles every pattern in `node` to RE2 (throwing what it refuses); true
 * when it holds a reference. `names`: `node` maps names to schemas. Each
 * subschema spends one of `budget`; past it, or at a reference that is not
 * to a place in the schema itself (`#...`), it throws Costly.
 */
function walk(node: unknown, names: boolean, budget: { left: number }): boolean {
  if (node === null || typeof node !== "object") return false;
  // a list spends one too: nested lists would otherwise be walked as deep as they go
  if (!names && --budget.left < 0)
    throw new Costly(`its input schema is too large to check: more than ${MAX_SUBSCHEMAS} subschemas`);
  if (Array.isArray(node)) return node.map((n) => walk(n, false, budget)).some(Boolean);
  let refs = false;
  for (const [key, value] of Object.entries(node)) {
    if (names) {
      if (walk(value, false, budget)) refs = true;
      continue;
    }
    if (DATA.has(key)) continue;
    if (key === "$ref" || key === "$dynamicRef" || key === "$recursiveRef") {
      refs = true;
      if (typeof value !== "string" || !value.startsWith("#"))
        throw new Costly(
          `its input schema refers outside itself (${JSON.stringify(String(value).slice(0, 80))}): only a reference to a place in it (#/...) is resolved`,
        );
    } else if (key === "pattern" && typeof value === "string") schemaPattern(value);
    else if (key === "patternProperties" && value !== null && typeof value === "object")
      for (const p of Object.keys(value)) schemaPattern(p);
    if (walk(value, NAMED.has(key), budget)) refs = true;
  }
  return refs;
}

/**
 * The tool's shape check: its schema (compiled on first use), with every
 * argument the schema does not name refused.
 */
export function validatorFor(tool: UpstreamTool): Validate {
  const named = new Set(Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {}));
  const validate: Validate = (data: unknown) => {
    validate.errors = null;
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      validate.errors = [{ instancePath: "", keyword: "type", params: { type: "object" } }];
      return false;
    }
    const extra = Object.keys(data).find((k) => !named.has(k));
    if (extra !== undefined) {
      validate.errors = [{ instancePath: "", keyword: "additionalProperties", params: { additionalProperty: extra } }];
      return false;
    }
    // compiled on the tool's first call; one its shape's check let through and ajv then refuses answers why
    const check = compiled(tool);
    if (typeof check !== "string" && checked(check, data)) return true;
    validate.errors = (
      typeof check === "string"
        ? [{ instancePath: "", keyword: "schema", message: check, params: {} }]
        : (check.errors ?? [])
    ) as Validate["errors"];
    return false;
  };
  return validate;
}

/** `check` on `data` with the patterns' budget afresh; one that spends it fails, its error saying so. */
function checked(check: Check, data: unknown): boolean {
  spend.left = PATTERN_BUDGET;
  try {
    return check(data);
  } catch (err) {
    if (err !== OVER) throw err;
    check.errors = [{ instancePath: "", keyword: "rta.patternBudget", params: { budget: PATTERN_BUDGET } }];
    return false;
  }
}
