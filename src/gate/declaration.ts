/**
 * Stage 3, declaration: a value of the right shape that the declaration does
 * not take. Refused here, before any gate, so it spends no grant and asks the
 * person nothing; the codes are the ones a person at the CLI gets for the same
 * mistake. A required input left out is refused here only when nothing later
 * could fill it: config fills some (stage 5), and a named profile or the
 * operator others, looked for after the grant gate (stage 8).
 */
import type { Call } from "../core/call.ts";
import { type Args, type Capability, PROFILE_INPUT } from "../core/capability.ts";
import type { Config } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import type { Scalar } from "../core/result.ts";
import { type Audience, isRequired } from "../core/schema.ts";
import { profileShaped } from "./fill.ts";
import { configValues, inputEntries, valueRefusal } from "./values.ts";

/** The values sent, checked; `profile` is returned apart, since it names a profile rather than an input. */
export function checkDeclaration(
  cap: Capability,
  call: Call,
  args: Record<string, unknown>,
  config?: Config,
): { sent: Args; profile?: string } {
  const audience: Audience = call.origin.kind === "agent" ? "agent" : "person";
  const fromConfig = config ? configValues(config, cap) : undefined;
  const sent: Args = {};
  let profile: Scalar | undefined;
  // `profile` names a profile only where the capability takes one; an upstream tool's schema may name an input of
  // its own so, which is sent on like any other (and matched by a grant's --args), never read as a profile's name
  const takesProfile = profileShaped(cap);
  // what visibleInputs(cap, audience) lists, walked without making the list per call
  for (const [name, spec] of inputEntries(cap)) {
    if (audience === "agent" && spec.operatorOnly) continue;
    const value = args[name] as Scalar | undefined;
    if (value === undefined) {
      // With no config read yet, config may fill anything: the fill stage refuses what it must.
      const fillable =
        fromConfig === undefined ||
        fromConfig[name] !== undefined ||
        spec.profile === true ||
        spec.operatorOnly === true;
      if (isRequired(spec, audience) && !fillable) throw missing(name, spec.description, "is required");
      continue;
    }
    if (isBlank(value) && isRequired(spec, audience)) throw missing(name, spec.description, "is empty");
    const refusal = valueRefusal(name, spec, value);
    if (refusal) throw refusal;
    // `profile` names a profile rather than an input: kept apart, never in what was sent
    if (name === PROFILE_INPUT && takesProfile) profile = value;
    else sent[name] = value;
  }
  return typeof profile === "string" && profile !== "" ? { sent, profile } : { sent };
}

/** The refusal for an input a call needs and lacks (core.input.missing), with what to give. */
export function missing(name: string, description: string, why: string): RtaError {
  return new RtaError("core.input.missing", `${name} ${why}`, `give ${name}: ${description}`);
}

/** Sent, but with nothing in it: an empty or all-blank string. */
export function isBlank(value: Scalar): boolean {
  return typeof value === "string" && value.trim() === "";
}
