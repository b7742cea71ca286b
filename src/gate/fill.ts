/**
 * Stage 5, fill: an agent's call runs with the operator's settings exactly as
 * the operator's own does. What the call sent beats config, and what it left
 * out comes from config (the capability's own defaults, then its area's)
 * before a declared default. A value config gives that the CLI would refuse
 * is refused here too, as the operator's to change. (A named profile's values
 * come after the grant gate: see profiles.ts.)
 */
import type { Args, Capability, InputSpec } from "../core/capability.ts";
import { type Config, type ConfigState, EMPTY_CONFIG, usable } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import type { Scalar } from "../core/result.ts";
import { configValues, inputEntries, valueRefusal } from "./values.ts";

/** A capability a profile could change: one with an input a profile may set. */
export function profileShaped(cap: Capability): boolean {
  for (const [, spec] of inputEntries(cap)) if (spec.profile === true) return true;
  return false;
}

/**
 * The config a call may act on. While config.toml has never read, every
 * capability a profile could change is refused: with no record of which
 * profiles exist, a call that names none cannot be told from one that must.
 */
export function configFor(cap: Capability, state: ConfigState): Config {
  const config = usable(state);
  if (config) return config;
  if (profileShaped(cap)) {
    throw new RtaError(
      "core.profile.unreadable",
      `${cap.name} is unavailable until the operator's config reads`,
      "the person running rta can run `rta doctor` to see what is wrong with it",
    );
  }
  return EMPTY_CONFIG;
}

/** Stage 5: what the call sent, then config, then declared defaults; refuses a config value the declaration would (core.config.invalid). */
export function fill(cap: Capability, sent: Args, config: Config): Args {
  const fromConfig = configValues(config, cap);
  const out: Args = {};
  for (const [name, spec] of inputEntries(cap)) {
    if (sent[name] !== undefined) out[name] = sent[name];
    else if (fromConfig[name] !== undefined)
      out[name] = checkedSetting(cap, name, spec, fromConfig[name], "[defaults]");
    else if (spec.default !== undefined) out[name] = spec.default;
  }
  return out;
}

/** A value the operator set (config, a profile, a connection), held to the declaration as the CLI would hold it. */
export function checkedSetting(cap: Capability, name: string, spec: InputSpec, value: Scalar, where: string): Scalar {
  const typed =
    (spec.type === "string" && typeof value === "string") ||
    (spec.type === "boolean" && typeof value === "boolean") ||
    (spec.type === "number" && typeof value === "number") ||
    (spec.type === "integer" && Number.isInteger(value));
  const refusal = typed ? valueRefusal(name, spec, value) : undefined;
  if (!typed || refusal) {
    const why = typed
      ? (refusal as RtaError).message
      : `${name} must be ${spec.type === "integer" ? "an integer" : `a ${spec.type}`}`;
    throw new RtaError(
      "core.config.invalid",
      `the operator's config sets ${cap.name} ${name} to a value it does not take (${why})`,
      `it is the operator's to change, in ${where} of config.toml; \`rta config check\` shows it`,
    );
  }
  return value;
}
