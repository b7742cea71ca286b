/**
 * The built-in capabilities as the catalogue holds them: each declaration as
 * data and its run loaded with its module when it first runs (both generated
 * at build time from builtins.ts by scripts/gen-validators.ts), paired with
 * the shape checks generated from them, so start-up compiles no schema and
 * evaluates no capability's code.
 */
import type { Capability } from "../core/capability.ts";
import { Catalogue, type ValidatorSet } from "../core/catalogue.ts";
import { declarations, loaders } from "../generated/declarations.ts";
import { validators } from "../generated/validators.ts";

/** A new catalogue of the built-ins; refuses nothing (a declaration that does not load fails at build time). */
export function builtinCatalogue(): Catalogue {
  return new Catalogue(lazyBuiltins(), validators as ValidatorSet);
}

/**
 * The built-ins, each its declaration with a run that loads the capability's
 * module on its first call and then calls the module's own run (so what a
 * test puts in its place is what runs). A module that fails to
 * load fails that call, as a run that threw.
 */
export function lazyBuiltins(): Capability[] {
  return (declarations as unknown as Capability[]).map((decl, i) => {
    const load = loaders[i] as () => Promise<Capability>;
    let loaded: Capability | undefined;
    return {
      ...decl,
      // once loaded, a call goes straight to the module's run: no promise of its own in between
      run: (args, ctx) => {
        if (loaded) return loaded.run(args, ctx);
        return load().then((cap) => {
          loaded = cap;
          return cap.run(args, ctx);
        });
      },
    };
  });
}
