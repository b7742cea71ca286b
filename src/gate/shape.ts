/**
 * Stage 2, shape: the arguments against the tool's published schema, with the
 * validators ajv generated at build time. A wrong type or an argument the tool
 * does not have is refused, with the list of what the tool takes. An
 * operator-only input sent by an agent is, to the agent, an argument the tool
 * does not have: it gets exactly the words a typo gets.
 */
import type { Call } from "../core/call.ts";
import type { Capability } from "../core/capability.ts";
import { profilesFor } from "../core/card.ts";
import type { Catalogue } from "../core/catalogue.ts";
import type { Config } from "../core/config.ts";
import { RtaError } from "../core/errors.ts";
import type { Audience } from "../core/schema.ts";
import { visibleInputs } from "../core/schema.ts";
import { withArticle } from "../core/words.ts";

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** Stage 2: the arguments against the generated schema; refuses (core.mcp.badargs / core.input.invalid) naming the first fault. */
export function checkShape(
  cap: Capability,
  call: Call,
  catalogue: Catalogue,
  config?: Config,
): Record<string, unknown> {
  const audience: Audience = call.origin.kind === "agent" ? "agent" : "person";
  const validate = catalogue.validator(cap.name, audience);
  if (!validate) throw new Error(`no generated validator for ${cap.name}; run the build`);
  if (validate(call.args)) return call.args;
  const first = validate.errors?.[0];
  const code = audience === "agent" ? "core.mcp.badargs" : "core.input.invalid";
  const name = audience === "agent" ? cap.tool : cap.name;
  // the list is what the tool was published with: `profile` only while a profile is set up for its area
  throw new RtaError(
    code,
    `${name}: ${describe(first, cap, audience)}`,
    takes(cap, audience, audience === "person" || profilesFor(cap, config).length > 0),
  );
}

function describe(err: AjvError | undefined, cap: Capability, audience: Audience): string {
  if (!err) return "the arguments are not an object";
  if (err.keyword === "additionalProperties")
    return `unknown argument ${JSON.stringify(err.params.additionalProperty)}`;
  if (err.keyword === "rta.patternBudget")
    return "the arguments are too long for the patterns of its schema to be matched on them";
  const arg = err.instancePath.replace(/^\//, "");
  if (err.keyword === "type" && arg === "") return "the arguments must be an object";
  if (err.keyword === "type") {
    const spec = visibleInputs(cap, audience).find(([n]) => n === arg)?.[1];
    return `argument ${JSON.stringify(arg)} must be ${withArticle(spec?.type ?? String(err.params.type))}`;
  }
  return `argument ${JSON.stringify(arg)} is not valid`;
}

/** "proc_list takes: sort (string: cpu|mem|pid), limit (integer 1..1000)", or that it takes none; `profile` only with `profiles`. */
export function takes(cap: Capability, audience: Audience, profiles = true): string {
  const name = audience === "agent" ? cap.tool : cap.name;
  const inputs = visibleInputs(cap, audience, profiles);
  if (inputs.length === 0) return `${name} takes no arguments`;
  const list = inputs.map(([n, spec]) => {
    const detail = spec.options
      ? `: ${spec.options.join("|")}`
      : spec.range
        ? ` ${spec.range[0]}..${spec.range[1]}`
        : "";
    return `${n} (${spec.type}${detail})`;
  });
  return `${name} takes: ${list.join(", ")}`;
}
