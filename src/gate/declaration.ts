/**
 * Stage 3, declaration: a value of the right shape that the declaration does
 * not take. Refused here, before any gate, so it spends no grant and asks the
 * person nothing; the codes are the ones a person at the CLI gets for the same
 * mistake. Fills declared defaults for what was left out.
 */
import type { Call } from "../core/call.ts";
import type { Args, Capability } from "../core/capability.ts";
import { RtaError } from "../core/errors.ts";
import type { Scalar } from "../core/result.ts";
import { type Audience, isRequired, visibleInputs } from "../core/schema.ts";

export function checkDeclaration(cap: Capability, call: Call, args: Record<string, unknown>): Args {
  const audience: Audience = call.origin.kind === "agent" ? "agent" : "person";
  const out: Args = {};
  for (const [name, spec] of visibleInputs(cap, audience)) {
    const value = args[name] as Scalar | undefined;
    if (value === undefined) {
      if (isRequired(spec, audience)) throw missing(name, spec.description, "is required");
      if (spec.default !== undefined) out[name] = spec.default;
      continue;
    }
    if (isBlank(value) && isRequired(spec, audience)) throw missing(name, spec.description, "is empty");
    if (spec.options && !spec.options.includes(String(value))) {
      throw new RtaError(
        "core.input.option",
        `${name} cannot be ${JSON.stringify(value)}`,
        `${name} is one of: ${spec.options.join(", ")}`,
      );
    }
    if (spec.range && typeof value === "number" && (value < spec.range[0] || value > spec.range[1])) {
      throw new RtaError(
        "core.input.range",
        `${name} is ${value}, outside ${spec.range[0]}..${spec.range[1]}`,
        `give ${name} a number from ${spec.range[0]} to ${spec.range[1]}`,
      );
    }
    out[name] = value;
  }
  return out;
}

function missing(name: string, description: string, why: string): RtaError {
  return new RtaError("core.input.missing", `${name} ${why}`, `give ${name}: ${description}`);
}

/** Sent, but with nothing in it: an empty or all-blank string. */
function isBlank(value: Scalar): boolean {
  return typeof value === "string" && value.trim() === "";
}
