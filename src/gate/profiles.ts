/**
 * Stages 7 and 8: what a named profile sets and fences, and the required
 * inputs nothing could fill before the grant gate.
 *
 * A profile is read only once a grant for that exact profile let the call
 * through. Its connection's values and its `set` beat config but not what the
 * call sent. Its `only` is not a default: the value the call resolves to must
 * be one of its entries, or the call is refused as core.profile.fenced before
 * anything is fetched or opened, in a sentence that names the input and
 * neither the list nor the profile. A blank is said as a blank. A boolean
 * input declared to widen a fenced input (`widens`) is fenced too: set true,
 * the call is refused the same way.
 */
import type { Args, Capability } from "../core/capability.ts";
import type { Config } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import { isBlank, missing } from "./declaration.ts";
import { checkedSetting } from "./fill.ts";
import { inputEntries } from "./values.ts";

/** Stage 7: a named profile's settings over the filled args; refuses an unknown profile, a value the profile fences, and a switch that widens one. */
export function applyProfile(
  cap: Capability,
  name: string | undefined,
  sent: Args,
  filled: Args,
  config: Config,
): Args {
  if (name === undefined) return filled;
  const profile = config.profiles[name];
  if (!profile || profile.area !== cap.area) {
    throw new RtaError(
      "core.profile.unknown",
      `no profile named ${JSON.stringify(name)} is set up for ${cap.name}`,
      "call it without profile, or ask the person running rta which profiles there are",
    );
  }
  const out: Args = { ...filled };
  const connection = profile.connection !== undefined ? config.connections[profile.connection] : undefined;
  const settings: [Record<string, unknown>, string][] = [
    [connection?.values ?? {}, `[connections.${profile.connection}]`],
    [profile.set, `[profiles.${name}] set`],
  ];
  for (const [values, where] of settings) {
    for (const [input, value] of Object.entries(values)) {
      const spec = cap.inputs[input];
      if (!spec || sent[input] !== undefined) continue;
      out[input] = checkedSetting(cap, input, spec, value as string, where);
    }
  }
  for (const [input, allowed] of Object.entries(profile.only)) {
    if (!cap.inputs[input]) continue;
    const value = out[input];
    if (value === undefined || isBlank(value)) {
      throw new RtaError(
        "core.profile.fenced",
        `${input} is blank, and this call has to be told which one`,
        `send ${input}`,
      );
    }
    if (!allowed.some((a) => a === value || String(a) === String(value))) {
      throw new RtaError(
        "core.profile.fenced",
        `${input} is outside what this call may reach`,
        `send another ${input}, or call without profile`,
      );
    }
  }
  // A switch declared to widen a fenced input would reach past the fence while the input itself stays inside it.
  for (const [input, spec] of inputEntries(cap)) {
    if (spec.widens !== undefined && out[input] === true && Object.hasOwn(profile.only, spec.widens)) {
      throw new RtaError(
        "core.profile.fenced",
        `${input} would reach past what this call may reach of ${spec.widens}`,
        `call without ${input}, or without profile`,
      );
    }
  }
  return out;
}

/** Stage 8: a required input still without a value (one a profile or only the operator gives). */
export function requireFilled(cap: Capability, args: Args): void {
  for (const [name, spec] of inputEntries(cap)) {
    if (spec.required && args[name] === undefined) throw missing(name, spec.description, "is required");
  }
}
