/**
 * The shape schemas the pipeline checks, keyed for the generated validators.
 * Both the build script and the stale-validator test read this, so the
 * generated code and the declarations cannot drift apart unnoticed.
 */
import { createHash } from "node:crypto";
import type { Catalogue } from "../core/catalogue.ts";
import { type Audience, type JsonSchema, shapeSchema } from "../core/schema.ts";

export const AUDIENCES: readonly Audience[] = ["agent", "person"];

/** `proc.list#agent` -> its shape schema, in catalogue order. */
export function shapeSchemas(catalogue: Catalogue): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  for (const cap of catalogue.all()) {
    for (const audience of AUDIENCES) out.set(validatorKey(cap.name, audience), shapeSchema(cap, audience));
  }
  return out;
}

/** The key a ValidatorSet holds a capability's check under (see Catalogue.validator). */
export function validatorKey(name: string, audience: Audience): string {
  return `${name}#${audience}`;
}

/** A digest of every shape schema; the generated module carries the one it was built from. */
export function schemaFingerprint(schemas: Map<string, JsonSchema>): string {
  return createHash("sha256")
    .update(JSON.stringify([...schemas]))
    .digest("hex")
    .slice(0, 16);
}
