/**
 * A call is the one value every front builds and hands to the pipeline.
 * A person at the terminal names a capability by its dotted name; an agent
 * names a tool (`area_thing_action`).
 */
import type { RtaError } from "./errors.ts";
import type { ResultValue } from "./result.ts";

export type Transport = "stdio" | "http" | "memory";

export interface AgentOrigin {
  kind: "agent";
  /** from the registration (`--agent`), else the client's reported name */
  name: string;
  /** the client's reported name and version */
  client: string;
  /** the server process's session id, written on every record line */
  session: string;
  transport: Transport;
  /** set when the call came as a resource read (`resources/read` of a read's template), not a tools/call */
  via?: "resource";
}

export interface PersonOrigin {
  kind: "person";
}

export type Origin = AgentOrigin | PersonOrigin;

export interface Call {
  /** dotted name from a person, tool name from an agent */
  capability: string;
  args: Record<string, unknown>;
  origin: Origin;
  profile?: string;
  connection?: string;
  /** false: the call spends nothing of a rate limit (a subscription's re-run); left out, an agent's call counts */
  countsTowardLimit?: boolean;
}

export const person: PersonOrigin = { kind: "person" };

/** What a call ends with, from the pipeline to a front: a value, or the error that stopped it. */
export type Outcome = { ok: true; value: ResultValue } | { ok: false; error: RtaError };
