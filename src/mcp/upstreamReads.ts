/**
 * resources/read and prompts/get of what an upstream's `select` offers
 * (src/upstreams/selections.ts): each is one call through the pipeline, of a
 * capability made for it alone, with the agent as its origin, so a lock stops
 * it, the bounds hold it, redaction masks it and the record has it. Its
 * answer is the protocol's result; a refusal is a JSON-RPC error whose data
 * carries rta's code and hint, as an unknown tool's. A URI under
 * rta://upstream/ that names nothing offered is RESOURCE_NOT_FOUND in words
 * that repeat nothing of it.
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { AgentOrigin } from "../core/call.ts";
import type { Limits } from "../gate/bound.ts";
import type { Deps } from "../gate/deps.ts";
import { runCall } from "../gate/pipeline.ts";
import type { Routed } from "../upstreams/exposed.ts";
import type { Selections } from "../upstreams/selections.ts";

/** What a read is handed of the server's context (server.ts's ServeContext has it). */
export interface ReadContext {
  deps: Deps;
  limits: Limits;
  onUnexpected?: (thrown: unknown) => void;
  upstreams?: Selections;
  /** false: a subscription's read again, which spends nothing of a rate limit */
  countsTowardLimit?: boolean;
}

/** What an unknown rta://upstream/ URI is told: nothing of it, nor of what is there. */
const NOT_OFFERED =
  "no resource this server offers has that URI: resources/list and resources/templates/list name them";

async function run(
  ctx: ReadContext,
  routed: Routed,
  origin: AgentOrigin,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const outcome = await runCall(
    {
      capability: routed.capability,
      args: routed.args,
      origin,
      ...(ctx.countsTowardLimit === false ? { countsTowardLimit: false } : {}),
    },
    routed.catalogue,
    ctx.deps,
    {
      limits: ctx.limits,
      signal,
      onUnexpected: ctx.onUnexpected,
    },
  );
  if (outcome.ok) return outcome.value.type === "object" ? outcome.value.value : {};
  const { code, message, hint } = outcome.error;
  if (code === "core.tool.unknown") throw new ResourceNotFoundError(routed.capability, NOT_OFFERED);
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, message, { code, ...(hint !== undefined ? { hint } : {}) });
}

/**
 * The contents of an upstream's resource `uri`, read through the pipeline;
 * undefined for a URI not under rta://upstream/ (rta's own reads answer it).
 * Refuses RESOURCE_NOT_FOUND, and each refusal of the pipeline.
 */
export async function readUpstreamResource(
  ctx: ReadContext,
  uri: string,
  origin: AgentOrigin,
  signal: AbortSignal,
): Promise<{ contents: Record<string, unknown>[] } | undefined> {
  const routed = ctx.upstreams?.resource(uri);
  if (routed === undefined) return undefined;
  const value = await run(ctx, routed, origin, signal);
  const contents = Array.isArray(value.contents) ? (value.contents as Record<string, unknown>[]) : [];
  // said under the URI the agent read, never the upstream's own
  return { contents: contents.map((c) => ({ uri, ...c })) };
}

/**
 * An upstream's prompt `name` with `args`, got through the pipeline;
 * undefined for a name no upstream prompt is offered (or withheld) under.
 * Refuses each refusal of the pipeline.
 */
export async function getUpstreamPrompt(
  ctx: ReadContext,
  name: string,
  args: Record<string, unknown>,
  origin: AgentOrigin,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const routed = ctx.upstreams?.prompt(name, args);
  if (routed === undefined) return undefined;
  return run(ctx, routed, origin, signal);
}
