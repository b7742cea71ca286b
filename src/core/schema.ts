/**
 * JSON Schema projections of a declaration (draft 2020-12).
 *
 * - The published schema is what a client sees as a tool's inputSchema: types,
 *   descriptions, enums, bounds, defaults and what is required.
 * - The shape schema is what stage 2 of the pipeline checks: types and unknown
 *   arguments only. Options, ranges and missing inputs are the declaration's to
 *   refuse (stage 3), with the codes a person at the CLI gets for the same
 *   mistake, so they are left out here on purpose.
 *
 * An agent's projection leaves out operator-only inputs: to an agent they are
 * arguments the tool does not have.
 */
import { type Capability, type InputSpec, PROFILE_INPUT } from "./capability.ts";

export type Audience = "agent" | "person";

export const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

export interface JsonSchema {
  $schema?: string;
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
}

/**
 * A tool's inputSchema. It does not say `additionalProperties: false`: every
 * tool takes only the inputs it lists, which the instructions say once
 * instead of each of the tools/list's schemas, and the shape check (stage 2)
 * refuses any other argument whatever the schema said.
 */
export type PublishedSchema = Omit<JsonSchema, "additionalProperties" | "$schema">;

/**
 * The inputs the audience may send, in declaration order. An agent is shown
 * the profile input only while a profile is set up for the area (`profiles`);
 * one it sends anyway is still the gate's to refuse.
 */
export function visibleInputs(cap: Capability, audience: Audience, profiles = true): [string, InputSpec][] {
  return Object.entries(cap.inputs).filter(
    ([name, spec]) => audience === "person" || (!spec.operatorOnly && (profiles || name !== PROFILE_INPUT)),
  );
}

/** True when the audience must send the input: declared required, or read from a pipe that an agent does not have. */
export function isRequired(spec: InputSpec, audience: Audience): boolean {
  return spec.required === true || (audience === "agent" && spec.fromPipe === true);
}

/**
 * `configured` are the inputs the operator's config gives a value: they are
 * not listed as required, so a client that checks a call against the schema
 * lets through one that leaves them out. An input only a profile sets stays
 * listed, since a call chooses its profile and the schema is the same for all.
 * `profiles` false leaves the profile input out (no profile is set up for it).
 */
export function publishedSchema(
  cap: Capability,
  audience: Audience,
  configured: ReadonlySet<string> = new Set(),
  profiles = true,
): PublishedSchema {
  const properties: JsonSchema["properties"] = {};
  const required: string[] = [];
  for (const [name, spec] of visibleInputs(cap, audience, profiles)) {
    const prop: Record<string, unknown> = { type: spec.type, description: spec.description };
    if (spec.options) prop.enum = [...spec.options];
    if (spec.range) {
      prop.minimum = spec.range[0];
      // a bound at the largest integer a JSON number holds exactly says nothing a client could act on
      if (spec.range[1] !== Number.MAX_SAFE_INTEGER) prop.maximum = spec.range[1];
    }
    if (spec.default !== undefined) prop.default = spec.default;
    properties[name] = prop;
    if (isRequired(spec, audience) && !configured.has(name)) required.push(name);
  }
  const schema: PublishedSchema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** The schema stage 2 checks arguments against: each visible input's type, and no other property. */
export function shapeSchema(cap: Capability, audience: Audience): JsonSchema {
  const properties: JsonSchema["properties"] = {};
  for (const [name, spec] of visibleInputs(cap, audience)) properties[name] = { type: spec.type };
  return { $schema: SCHEMA_DIALECT, type: "object", properties, additionalProperties: false };
}
