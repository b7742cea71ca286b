/**
 * Which agent a person means when a grant names none: the agents rta knows
 * of, from tokens issued, the team policy's `agents` and the record's calls.
 * When there is exactly one, it is the one; otherwise the person is asked to
 * name it, with the ones known.
 */
import { isAgentName } from "../../core/agentName.ts";
import { RtaError } from "../../core/errors.ts";
import type { Deps } from "../deps.ts";

/**
 * Every agent registered or seen, sorted, each spelled once: the agents of
 * tokens not revoked, the policy's `agents` list, and `inRecord` (the names
 * the record's lines carry). A name that is no agent name (a record written
 * by hand, an older build) is left out. Refuses a policy that does not read
 * (core.policy.unreadable) and a store that cannot be opened.
 */
export function knownAgents(deps: Deps, inRecord: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const t of deps.gate().tokens()) if (t.revoked_at === null) names.add(t.agent);
  for (const a of deps.policy.current().agents ?? []) names.add(a);
  for (const a of inRecord) names.add(a);
  return [...names].filter(isAgentName).sort();
}

/**
 * The one agent known, for a grant that names none. Refuses
 * (core.input.missing) when none is known or several are, naming them and
 * the command with --agent, as `example` is typed with it.
 */
export function soleAgent(known: string[], example: string): string {
  if (known.length === 1) return known[0] as string;
  const first = known[0] ?? "claude";
  throw new RtaError(
    "core.input.missing",
    known.length === 0
      ? "the grant names no agent, and none is registered or seen in the record"
      : `the grant names no agent, and ${known.length} are registered or seen: ${known.join(", ")}`,
    `name one with --agent: ${example} --agent ${first}`,
  );
}
