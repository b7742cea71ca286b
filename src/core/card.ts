/**
 * The card: what `rta explain <capability>` shows and what an agent can read
 * as a resource later. A projection of the declaration, like the CLI command
 * and the MCP tool, so the three cannot disagree.
 *
 * A person's card lists every input. An agent's card is the tool's view: the
 * inputs its schema shows, required as the schema says, and no operator-only
 * input, which to an agent is an argument the tool does not have (stage 2
 * answers one like a typo, and the card must not say otherwise).
 */
import {
  type Capability,
  type ColumnSpec,
  type InputType,
  needsGrant,
  PROFILE_INPUT,
  type Safety,
} from "./capability.ts";
import type { Config } from "./config.ts";
import type { Scalar, Shape } from "./result.ts";
import { type Audience, isRequired, visibleInputs } from "./schema.ts";

export interface CardInput {
  name: string;
  type: InputType;
  description: string;
  required: boolean;
  default?: Scalar;
  options?: string[];
  range?: [number, number];
  /** on the CLI: read from stdin when left out; over MCP: required */
  from_pipe?: true;
  /** set only by the operator; an agent is never offered it */
  operator_only?: true;
  /** a path, opened under a root to read or to write */
  path?: "read" | "write";
  /** a switch that widens this input: refused under a profile that fences that input */
  widens?: string;
}

export interface Card {
  name: string;
  tool: string;
  command: string;
  summary: string;
  agent_text?: string;
  also_called: string[];
  safety: Safety;
  /** what an agent needs: "free (mcp)" or "grant required (mcp)" */
  mcp: "free (mcp)" | "grant required (mcp)";
  /** the profiles set up for its area: a call naming one needs a grant issued for that profile */
  with_profile?: Record<string, "grant required (mcp)">;
  reaches?: string;
  offsite?: string;
  reveals?: true;
  /** the input a grant can be narrowed to one record of */
  record?: string;
  inputs: CardInput[];
  result: { shape: Shape; columns?: ColumnSpec[] };
  examples: { command: string; note: string }[];
}

/**
 * The profiles set up for the capability's area, in the config's order: the
 * ones a call may name. None when it takes no profile input.
 */
export function profilesFor(cap: Capability, config: Config | undefined): string[] {
  if (!config || !(PROFILE_INPUT in cap.inputs)) return [];
  return Object.entries(config.profiles)
    .filter(([, p]) => p.area === cap.area)
    .map(([name]) => name);
}

/** What a call costs an agent, in one line: `free (mcp); grant required (mcp) with profile work`. */
export function mcpCost(card: Pick<Card, "mcp" | "with_profile">): string {
  const names = Object.keys(card.with_profile ?? {});
  if (names.length === 0) return card.mcp;
  const which = `with profile ${names.join(" or ")}`;
  return card.mcp === "free (mcp)"
    ? `${card.mcp}; grant required (mcp) ${which}`
    : `${card.mcp}; ${which}, a grant issued for that profile`;
}

/**
 * `configured` are the inputs the operator's config gives a value; on an
 * agent's card they are not required, as in the tool's published schema.
 * `config` names the profiles a call may name; an agent's card shows the
 * profile input only when there is one. A pure projection: it refuses nothing.
 */
export function cardOf(
  cap: Capability,
  audience: Audience = "person",
  configured: ReadonlySet<string> = new Set(),
  config?: Config,
): Card {
  const profiles = profilesFor(cap, config);
  const card: Card = {
    name: cap.name,
    tool: cap.tool,
    command: `rta ${cap.words.join(" ")}`,
    summary: cap.summary,
    also_called: [...(cap.searchWords ?? [])],
    safety: cap.safety,
    mcp: needsGrant(cap) ? "grant required (mcp)" : "free (mcp)",
    inputs: visibleInputs(cap, audience, profiles.length > 0).map(([name, spec]) => {
      const input: CardInput = {
        name,
        type: spec.type,
        description: spec.description,
        required: audience === "agent" ? isRequired(spec, "agent") && !configured.has(name) : spec.required === true,
      };
      if (spec.default !== undefined) input.default = spec.default;
      if (spec.options) input.options = [...spec.options];
      if (spec.range) input.range = [spec.range[0], spec.range[1]];
      // an agent has no pipe: the input is simply required of it
      if (spec.fromPipe && audience === "person") input.from_pipe = true;
      if (spec.operatorOnly) input.operator_only = true;
      if (spec.path) input.path = spec.path;
      if (spec.widens) input.widens = spec.widens;
      return input;
    }),
    result: cap.result.columns
      ? { shape: cap.result.shape, columns: [...cap.result.columns] }
      : { shape: cap.result.shape },
    examples: cap.examples.map((e) => ({ ...e })),
  };
  if (cap.agentText) card.agent_text = cap.agentText;
  if (cap.reaches) card.reaches = cap.reaches;
  if (cap.offsite) card.offsite = cap.offsite;
  if (cap.reveals) card.reveals = true;
  if (cap.record) card.record = cap.record;
  if (profiles.length > 0) card.with_profile = Object.fromEntries(profiles.map((n) => [n, "grant required (mcp)"]));
  return card;
}
