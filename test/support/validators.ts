/**
 * For tests that declare their own capabilities: the shape checks compiled at
 * run time by ajv, from the same shape schemas the build compiles for the
 * built-ins. The product never does this: its checks are generated code.
 */
import Ajv2020 from "ajv/dist/2020.js";
import type { Capability } from "../../src/core/capability.ts";
import { Catalogue, type ValidatorSet } from "../../src/core/catalogue.ts";
import { shapeSchemas } from "../../src/gate/shapeSchemas.ts";

export function catalogueOf(capabilities: readonly Capability[]): Catalogue {
  const ajv = new Ajv2020({ strict: true });
  const validators: ValidatorSet = {};
  for (const [key, schema] of shapeSchemas(new Catalogue(capabilities))) validators[key] = ajv.compile(schema);
  return new Catalogue(capabilities, validators);
}
