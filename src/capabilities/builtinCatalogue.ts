/**
 * The built-in capabilities paired with the shape checks generated from them
 * at build time (scripts/gen-validators.ts), so start-up compiles no schema.
 */
import { Catalogue, type ValidatorSet } from "../core/catalogue.ts";
import { validators } from "../generated/validators.ts";
import { builtins } from "./builtins.ts";

/** A new catalogue of the built-ins; refuses nothing (a declaration that does not load fails at start-up). */
export function builtinCatalogue(): Catalogue {
  return new Catalogue(builtins, validators as ValidatorSet);
}
