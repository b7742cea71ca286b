/**
 * One agent call answered as MCP says it: run through the pipeline with the
 * server's bounds, its result one text block (an upstream's media after it),
 * a refusal the tool's error, an unknown tool a protocol fault.
 */
import { type InputRequiredResult, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { AgentOrigin, Outcome } from "../core/call.ts";
import { lap } from "../core/profile.ts";
import { errorResult, forAgent } from "../core/result.ts";
import { seatWithOperator } from "../gate/consent.ts";
import { runCall } from "../gate/pipeline.ts";
import type { McpSeat } from "./consentSeat.ts";
import { type MediaContent, mediaAnswer } from "./mediaAnswer.ts";
import type { ServeContext } from "./serveContext.ts";
import { toolWords } from "./toolWords.ts";

/** A tools/call result as rta builds it: one text block (then an upstream's image or audio blocks), with isError on the tool's refusal. */
export type ToolAnswer = {
  content: [{ type: "text"; text: string }, ...MediaContent[]];
  isError?: true;
};

/**
 * Runs one tool call through the pipeline and builds its result, as the SDK's
 * handler and the stdio direct path both answer it. Throws a ProtocolError
 * (-32602, with rta's code and hint in its data) for an unknown tool.
 * `version` is the protocol revision the client settled on (none: the
 * 2026-07-28 era): an upstream's audio goes only to a client whose revision
 * has audio blocks, else the call is refused upstream.result.unsupported.
 * With a consent seat, a call on a confirm list may be answered with the
 * seat's input_required question instead (2026-07-28); without one it is refused.
 */
export async function answerCall(
  ctx: ServeContext,
  name: string,
  args: Record<string, unknown>,
  origin: AgentOrigin,
  signal: AbortSignal | AbortController,
  version?: string,
  seat?: McpSeat,
): Promise<ToolAnswer | InputRequiredResult> {
  const outcome = await agentOutcome(ctx, name, args, origin, signal, seat);
  if (!outcome.ok && outcome.error.code === "core.consent.asked" && seat?.question) return seat.question;
  if (outcome.ok && outcome.value.type === "media") return mediaAnswer(outcome.value, version);
  if (outcome.ok) {
    const text = JSON.stringify(forAgent(outcome.value));
    lap("result JSON");
    return { content: [{ type: "text", text }] };
  }
  // An unknown tool (and a never-a-tool name, in the same words) is a protocol fault; everything else is the tool's answer.
  // The hint rides in the error's data, with the code, since a JSON-RPC error has no field of its own for it.
  // so is a request state that fails its check (altered, for another call, late, replayed): -32602, as the spec asks
  if (outcome.error.code === "core.tool.unknown" || (seat?.stale && outcome.error.code === "core.consent.declined")) {
    const { code, hint } = outcome.error;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error.message, { code, hint });
  }
  const answer = errorResult(outcome.error);
  if (answer.hint !== undefined) answer.hint = toolWords(answer.hint, ctx.catalogue);
  return { content: [{ type: "text", text: JSON.stringify(answer) }], isError: true };
}

/**
 * One agent call through the pipeline, with the server's bounds: what a
 * tools/call and a resource read both run. It stops when `stop` (a signal,
 * or the controller of one made for this call alone) is aborted.
 */
export function agentOutcome(
  ctx: ServeContext,
  name: string,
  args: Record<string, unknown>,
  origin: AgentOrigin,
  stop: AbortSignal | AbortController,
  seat?: McpSeat,
): Promise<Outcome> {
  const own = stop instanceof AbortController ? stop : undefined;
  const signal = own ? own.signal : (stop as AbortSignal);
  const operator = ctx.operator;
  if (operator === undefined)
    return runCall({ capability: name, args, origin }, ctx.catalogue, ctx.deps, {
      limits: ctx.limits,
      signal,
      onUnexpected: ctx.onUnexpected,
      consent: seat,
    });
  // watched by the operator channel: said as it starts and ends, cancelled when a person locks the agent, and a
  // person at `rta operator` asked when the policy says so or the client cannot ask
  if (ctx.transport === "stdio") operator.sessionStarted(ctx.session, origin.name);
  const consent = seatWithOperator(seat, operator, ctx.deps);
  return operator.watch(
    origin,
    name,
    args,
    signal,
    (watched, onSpent) =>
      runCall({ capability: name, args, origin }, ctx.catalogue, ctx.deps, {
        limits: ctx.limits,
        signal: watched,
        onSpent,
        onUnexpected: ctx.onUnexpected,
        consent,
      }),
    own,
  );
}
