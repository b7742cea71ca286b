/**
 * A resource read of a read's template: the URI's arguments handed to the
 * same pipeline entry a tools/call uses (resolve, shape, declaration, lock,
 * grant, paths, bounds, redaction, record), with the origin marked as a
 * resource read so the record says how it came. The answer is the tool's:
 * a text result's text as text/plain, any other result's JSON as
 * application/json. A refusal or failure is a JSON-RPC error carrying rta's
 * code and hint: -32602 when it is the arguments that are wrong (or ask for
 * more than an answer may hold), -32600 when the gate refuses the caller (a
 * grant, a lock), -32603 for a failure of the run itself.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { AgentOrigin, Outcome } from "../core/call.ts";
import type { RtaError } from "../core/errors.ts";
import { forAgent } from "../core/result.ts";
import type { ReadTemplate } from "./templates.ts";

/** Runs one agent call by tool name, as tools/call does. */
export type RunAgentCall = (tool: string, args: Record<string, unknown>, origin: AgentOrigin) => Promise<Outcome>;

/** Codes that say the arguments are wrong, or ask for more than an answer may hold: a bad read's -32602. */
const ARGUMENT_CODES = /^core\.(mcp\.badargs|input\.|path\.|result\.|mcp\.result\.)/;

/** Codes that refuse the caller, not the arguments: the gate's, said as an invalid request. */
const REFUSAL_CODES = /^core\.(grant|lock|rate|consent|profile|record)\./;

/**
 * Reads `uri`, already matched to `template` with `args`, for `origin`.
 * Throws a ProtocolError for whatever the call ends with that is not a value,
 * with rta's code and hint (its capability names made tool names by `words`)
 * in the error's data.
 */
export async function readTemplate(
  uri: string,
  template: ReadTemplate,
  args: Record<string, unknown>,
  origin: AgentOrigin,
  run: RunAgentCall,
  words: (hint: string) => string,
): Promise<{ uri: string; mimeType: string; text: string }> {
  const outcome = await run(template.listing.name, args, { ...origin, via: "resource" });
  if (!outcome.ok) throw refusal(outcome.error, words);
  const value = forAgent(outcome.value);
  if (value.type === "text" && template.mimeType === "text/plain")
    return { uri, mimeType: "text/plain", text: value.text };
  return { uri, mimeType: "application/json", text: JSON.stringify(value) };
}

function refusal(error: RtaError, words: (hint: string) => string): ProtocolError {
  const code = ARGUMENT_CODES.test(error.code)
    ? ProtocolErrorCode.InvalidParams
    : REFUSAL_CODES.test(error.code)
      ? ProtocolErrorCode.InvalidRequest
      : ProtocolErrorCode.InternalError;
  const data: { code: string; hint?: string } = { code: error.code };
  if (error.hint !== undefined) data.hint = words(error.hint);
  return new ProtocolError(code, error.message, data);
}
