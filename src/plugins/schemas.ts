/**
 * The JSON Schemas (draft 2020-12) of what a plugin sends: a `describe`
 * answer and a `run` answer's value. The build compiles them into standalone
 * ajv code (scripts/gen-validators.ts writes src/generated/plugins.js), so
 * checking a plugin compiles nothing at run time. What a schema cannot say
 * (the prefix, duplicates, what an input names) protocol.ts checks after.
 */

const TEXT = { type: "string", maxLength: 4096 };
const SHORT = { type: "string", minLength: 1, maxLength: 256 };
const SCALAR = { type: ["string", "number", "boolean", "null"] };
const CODE = { type: "string", pattern: "^[a-z][a-z0-9]*(\\.[a-z][a-z0-9-]*)+$", maxLength: 128 };

const column = {
  type: "object",
  required: ["name", "doc"],
  additionalProperties: false,
  properties: { name: SHORT, doc: TEXT, unit: { enum: ["bytes", "percent", "seconds", "time"] } },
};

const input = {
  type: "object",
  required: ["type", "description"],
  additionalProperties: false,
  properties: {
    type: { enum: ["string", "integer", "number", "boolean"] },
    description: TEXT,
    required: { type: "boolean" },
    default: SCALAR,
    options: { type: "array", items: SHORT, minItems: 1, maxItems: 256 },
    range: { type: "array", items: { type: "number" }, minItems: 2, maxItems: 2 },
    path: { enum: ["read", "write"] },
    parentsFrom: SHORT,
    operatorOnly: { type: "boolean" },
    fromPipe: { type: "boolean" },
    profile: { type: "boolean" },
    positional: { type: "boolean" },
    widens: SHORT,
  },
};

const decl = {
  type: "object",
  required: ["name", "summary", "safety", "inputs", "result", "examples"],
  additionalProperties: false,
  properties: {
    name: { type: "string", pattern: "^[a-z][a-z0-9]*(\\.[a-z][a-z0-9-]*){1,2}$", maxLength: 128 },
    summary: { type: "string", minLength: 1, maxLength: 200 },
    agentText: TEXT,
    searchWords: { type: "array", items: SHORT, maxItems: 32 },
    safety: { enum: ["read", "write", "destructive"] },
    reaches: SHORT,
    // said inside rta's own sentence of a tool ("It asks <host>, a fixed service you cannot aim"): a host name only
    offsite: {
      type: "string",
      pattern: "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$",
      maxLength: 253,
    },
    reveals: { type: "boolean" },
    record: SHORT,
    inputs: {
      type: "object",
      maxProperties: 64,
      propertyNames: { pattern: "^[a-z][a-z0-9_]*$", maxLength: 64 },
      additionalProperties: input,
    },
    result: {
      type: "object",
      required: ["shape"],
      additionalProperties: false,
      properties: {
        shape: { enum: ["object", "table", "log", "text", "tree", "chart"] },
        columns: { type: "array", items: column, maxItems: 64 },
        fields: { type: "array", items: column, maxItems: 64 },
        whenEmpty: CODE,
      },
    },
    examples: {
      type: "array",
      maxItems: 16,
      items: {
        type: "object",
        required: ["command", "note"],
        additionalProperties: false,
        properties: { command: TEXT, note: TEXT },
      },
    },
    connection: SHORT,
  },
};

/** What `describe` answers; the plugin's name, prefix and duplicates are checked after it. */
export const describedSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["name", "version", "protocol", "capabilities"],
  additionalProperties: false,
  properties: {
    name: { type: "string", pattern: "^[a-z][a-z0-9]*$", maxLength: 64 },
    version: { type: "string", minLength: 1, maxLength: 64 },
    protocol: { type: "integer" },
    capabilities: { type: "array", items: decl, maxItems: 1000 },
  },
};

const warnings = {
  type: "array",
  maxItems: 64,
  items: {
    type: "object",
    required: ["code", "message"],
    additionalProperties: false,
    properties: { code: CODE, message: TEXT },
  },
};

const rowsResult = (kind: string) => ({
  type: "object",
  required: ["type", "columns", "rows", "total"],
  additionalProperties: false,
  properties: {
    type: { const: kind },
    columns: { type: "array", items: { type: "string" } },
    rows: { type: "array", items: { type: "array", items: SCALAR } },
    total: { type: "integer", minimum: 0 },
    warnings,
  },
});

/** A `run` answer's value: one ResultValue (core/result.ts) of any shape; the declared shape is checked after. */
export const resultSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    node: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: {
        name: { type: "string" },
        value: SCALAR,
        children: { type: "array", items: { $ref: "#/$defs/node" } },
      },
    },
  },
  oneOf: [
    {
      type: "object",
      required: ["type", "value"],
      additionalProperties: false,
      properties: { type: { const: "object" }, value: { type: "object" } },
    },
    rowsResult("table"),
    rowsResult("log"),
    {
      type: "object",
      required: ["type", "text"],
      additionalProperties: false,
      properties: {
        type: { const: "text" },
        text: { type: "string" },
        note: { type: "string" },
        short: { enum: ["cut", "replaced"] },
        endsLine: { const: true },
      },
    },
    {
      type: "object",
      required: ["type", "root"],
      additionalProperties: false,
      properties: { type: { const: "tree" }, root: { $ref: "#/$defs/node" }, warnings },
    },
    {
      type: "object",
      required: ["type", "unit", "series"],
      additionalProperties: false,
      properties: {
        type: { const: "chart" },
        unit: { type: "string" },
        series: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "points"],
            additionalProperties: false,
            properties: {
              name: { type: "string" },
              points: {
                type: "array",
                items: { type: "array", prefixItems: [SCALAR, { type: "number" }], minItems: 2, maxItems: 2 },
              },
            },
          },
        },
      },
    },
  ],
};
