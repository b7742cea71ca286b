/**
 * What an input's declaration and config say of a value, shared by stage 3
 * (declaration) and stage 5 (fill), which both judge a value: the one place
 * either asks, so neither imports the other.
 */
import type { Capability, InputSpec } from "../core/capability.ts";
import type { Config } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import type { Scalar } from "../core/result.ts";

/** Config's values for a capability when it sets none: shared, so a caller must not change what it is given. */
const NO_VALUES: Readonly<Record<string, Scalar>> = Object.freeze({});

/**
 * Config's values for a capability: its area's defaults, overridden by its
 * own. Read-only: when only one of the two is set it is config's own table,
 * not a copy.
 */
export function configValues(config: Config, cap: Capability): Readonly<Record<string, Scalar>> {
  const area = config.defaults[cap.area];
  const own = config.defaults[cap.name];
  if (area === undefined) return own ?? NO_VALUES;
  return own === undefined ? area : { ...area, ...own };
}

/** Each capability's inputs as [name, spec] pairs, in declared order, made once: a call walks them at every stage. */
const entriesOf = new WeakMap<Capability, readonly (readonly [string, InputSpec])[]>();

/** The capability's inputs as [name, spec] pairs in declared order (Object.entries, made once per capability). */
export function inputEntries(cap: Capability): readonly (readonly [string, InputSpec])[] {
  let entries = entriesOf.get(cap);
  if (entries === undefined) {
    entries = Object.entries(cap.inputs);
    entriesOf.set(cap, entries);
  }
  return entries;
}

/** The refusal a value gets from an input's declaration (options, range), or undefined when it is taken. */
export function valueRefusal(name: string, spec: InputSpec, value: Scalar): RtaError | undefined {
  if (spec.options && !spec.options.includes(String(value))) {
    return new RtaError(
      "core.input.option",
      `${name} cannot be ${JSON.stringify(value)}`,
      `${name} is one of: ${spec.options.join(", ")}`,
    );
  }
  if (spec.range && typeof value === "number" && (value < spec.range[0] || value > spec.range[1])) {
    const [lo, hi] = spec.range;
    const open = hi >= Number.MAX_SAFE_INTEGER;
    return new RtaError(
      "core.input.range",
      open ? `${name} is ${value}, below ${lo}` : `${name} is ${value}, outside ${lo}..${hi}`,
      open ? `give ${name} a number from ${lo} up` : `give ${name} a number from ${lo} to ${hi}`,
    );
  }
  return undefined;
}
