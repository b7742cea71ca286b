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
import { type Capability, type ColumnSpec, type InputType, needsGrant, type Safety } from "./capability.ts";
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
 * `configured` are the inputs the operator's config gives a value; on an
 * agent's card they are not required, as in the tool's published schema.
 */
export function cardOf(
  cap: Capability,
  audience: Audience = "person",
  configured: ReadonlySet<string> = new Set(),
): Card {
  const card: Card = {
    name: cap.name,
    tool: cap.tool,
    command: `rta ${cap.words.join(" ")}`,
    summary: cap.summary,
    also_called: [...(cap.searchWords ?? [])],
    safety: cap.safety,
    mcp: needsGrant(cap) ? "grant required (mcp)" : "free (mcp)",
    inputs: visibleInputs(cap, audience).map(([name, spec]) => {
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
  return card;
}
