/**
 * What an agent may be called: the one definition, used by every verb that
 * takes `--agent` (grant, lock, token, mcp serve and install, agent log) and
 * by the server for the name a client reports. A name is a word a grant, a
 * lock and the record can all name, and a shell passes unquoted: 1 to 64
 * letters, digits, '.', '-' or '_', starting with a letter or a digit.
 */
import { RtaError } from "./errors.ts";

/** Long enough for any client's name and a suffix; short enough to sit in a table column. */
export const AGENT_NAME_MAX = 64;

/** The characters of a name, written once: the check and the making of a name from a client's both use it. */
const NAME_CHARS = "A-Za-z0-9._-";

const AGENT_NAME = new RegExp(`^[A-Za-z0-9][${NAME_CHARS}]{0,${AGENT_NAME_MAX - 1}}$`);

/** A run of what no name may hold, as a client's reported name is made into one. */
const NOT_NAME_CHARS = new RegExp(`[^${NAME_CHARS}]+`, "g");

/** The name a client reports when it reports none that can be made one. */
const UNKNOWN_AGENT = "unknown";

/**
 * The name a grant must give for an agent's calls, or undefined when it is
 * the one said for a client that reported none that could be made a name.
 */
export function knownAgent(name: string): string | undefined {
  return name === UNKNOWN_AGENT ? undefined : name;
}

/** Whether `name` is an agent name; refuses nothing. */
export function isAgentName(name: string): boolean {
  return AGENT_NAME.test(name);
}

/** `name` as given, or core.input.invalid naming the flag. A long name is not echoed back whole. */
export function checkAgentName(name: string, flag = "--agent"): string {
  if (isAgentName(name)) return name;
  const said =
    name === ""
      ? `${flag} is empty`
      : name.length > AGENT_NAME_MAX
        ? `${flag} is ${name.length} characters long`
        : `${flag} ${JSON.stringify(name)} is not an agent name`;
  throw new RtaError(
    "core.input.invalid",
    said,
    `an agent name is 1 to ${AGENT_NAME_MAX} letters, digits, '.', '-' or '_', starting with a letter or digit`,
  );
}

/**
 * Whether a name a person typed names this agent: whatever its case, since a
 * name is ASCII and `claude-desktop` is plainly the agent the record shows as
 * Claude-Desktop. For what stops, takes back or shows (a lock, a revoke, a
 * listing, the record), never for what lets an agent through (a grant, a
 * token), where a slip must refuse.
 */
export function namesAgent(typed: string, agent: string): boolean {
  return typed.toLowerCase() === agent.toLowerCase();
}

/** An optional `--agent`: undefined when left out, checked when given. */
export function optionalAgentName(name: string | undefined, flag = "--agent"): string | undefined {
  return name === undefined ? undefined : checkAgentName(name, flag);
}

/**
 * The agent a client's reported name stands for, made into a name when it is
 * not one ("Claude Desktop" is Claude-Desktop), so that the record, a grant's
 * --agent and a refusal's hint all spell it the same way.
 */
export function agentNameFromClient(reported: string | undefined): string {
  const text = (reported ?? "").trim();
  if (isAgentName(text)) return text;
  // A name is asked for on every call, and a client may report megabytes: only its start can matter.
  const word = text
    .slice(0, 4 * AGENT_NAME_MAX)
    .replace(NOT_NAME_CHARS, "-")
    .replace(/^[._-]+/, "")
    .slice(0, AGENT_NAME_MAX);
  return isAgentName(word) ? word : UNKNOWN_AGENT;
}
