import { expect, test } from "bun:test";
import { builtins } from "../../src/capabilities/builtins.ts";
import { Catalogue } from "../../src/core/catalogue.ts";
import { schemaFingerprint, shapeSchemas } from "../../src/gate/shapeSchemas.ts";
import { fingerprint, validators } from "../../src/generated/validators.ts";

test("the generated validators were built from the current declarations (run `npm run gen` if not)", () => {
  const schemas = shapeSchemas(new Catalogue(builtins));
  expect(fingerprint).toBe(schemaFingerprint(schemas));
  expect(Object.keys(validators).sort()).toEqual([...schemas.keys()].sort());
});
