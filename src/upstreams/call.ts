/**
 * One call of an upstream's tool, and its answer in rta's shapes: text
 * blocks become a `text` result, structured content an `object`, image and
 * audio blocks (checked, and held to the bound) a `media` one. Any other
 * block (an embedded resource, a resource link) is refused
 * (upstream.result.unsupported). The upstream's own error is passed on as
 * `upstream.<name>.error` with its text; a failure of the connection is
 * upstream.unavailable, in words that name nothing of where the upstream is.
 * Every text that came from the upstream has the operator's secrets (its env
 * and header values) masked before it leaves this module.
 */

import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { UpstreamRef } from "../core/capability.ts";
import { type Code, RtaError } from "../core/errors.ts";
import { lap } from "../core/profile.ts";
import type { MediaBlock, ResultValue } from "../core/result.ts";
import { tooLarge } from "../gate/bound.ts";
import { InvalidResult } from "./callResult.ts";
import { type UpstreamConnection, unreachable } from "./connection.ts";
import { masked } from "./secrets.ts";

/** The refusal for an upstream that could not be reached (upstream.unavailable), naming only the upstream. */
export function unavailable(name: string, why: string): RtaError {
  return new RtaError(
    "upstream.unavailable",
    `upstream ${name} is unavailable: ${why}`,
    "ask the person running rta to check it with `rta upstream list`",
  );
}

export interface CallLimits {
  /** how long a call may take */
  callMs: number;
  /** the hard bound on an answer, for what the transport cut */
  hard: number;
}

/**
 * Calls `ref`'s tool with `args` on `connection`, under `signal` and the time
 * limit, calling `beforeStart` first when a connection must be started for
 * it; refuses what `beforeStart` throws (an RtaError), upstream.unavailable,
 * upstream.<name>.error, upstream.result.unsupported and core.result.toolarge
 * (an answer past the bound, cut as it was read).
 */
export async function callUpstream(
  connection: UpstreamConnection,
  ref: UpstreamRef,
  args: Record<string, unknown>,
  signal: AbortSignal,
  secrets: readonly string[],
  limits: CallLimits,
  beforeStart?: () => void,
): Promise<ResultValue> {
  let result: Record<string, unknown>;
  try {
    const tool = { name: ref.tool, inputSchema: ref.inputSchema as { type: "object" } };
    result = await connection.callTool(tool, args, signal, limits.callMs, beforeStart);
    lap("upstream: answer");
  } catch (err) {
    // the program to start is not the one approved: said as it is, and no connection is tried
    if (err instanceof RtaError) throw err;
    if (signal.aborted) throw new RtaError("core.call.cancelled", "the caller cancelled the call before it finished");
    // the upstream answered with a JSON-RPC error: its words, not a failure of the connection
    if (err instanceof ProtocolError) throw upstreamError(ref.name, err.message, secrets);
    // it answered, with what is not a tool's result (a block's data that is not base64): the upstream failed the
    // call, the connection stands, and trying again soon gets the same answer
    if (malformedAnswer(err)) throw malformed(ref.name, err);
    const why = unreachable(err, connection.takeCut());
    // a connection that failed mid-call (cut at the bound, gone) is started again on a later call; a call that timed
    // out was cancelled (the client told the upstream), and the connection serves the other calls on
    if (!why.backingOff && !why.timedOut) connection.drop();
    if (why.tooLarge !== undefined) throw tooLarge(why.tooLarge, limits.hard);
    throw unavailable(ref.name, why.message);
  }
  const value = normalised(ref.name, result as unknown as Answer, secrets, limits.hard);
  lap("upstream: normalise");
  return value;
}

interface Answer {
  content?: { type: string; text?: string; data?: unknown; mimeType?: unknown }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An upstream's tool error as rta's, its text masked and cut; refuses nothing. */
function upstreamError(name: string, text: string, secrets: readonly string[]): RtaError {
  const said = masked(text, secrets).slice(0, 4096) || "it gave no reason";
  return new RtaError(`upstream.${name}.error` as Code, said, `the upstream ${name} refused or failed the call`);
}

/**
 * An answer refused as no result of its request's in MCP's shape (by the MCP
 * client, or by rta reading a call's answer itself), as
 * upstream.result.unsupported: the upstream answered, so it is neither
 * unreachable nor backed off, and its connection stands. The client's words
 * are not passed on (they may quote the upstream): only whether a block's
 * data was not base64, as rta's own check of a block says it.
 */
export function malformed(name: string, err: unknown, what = "call"): RtaError {
  const said = err instanceof Error ? err.message : "";
  const fault =
    err instanceof InvalidResult
      ? err.fault
      : /base64/i.test(said)
        ? "a block's data is not base64"
        : "the MCP client refused it";
  return new RtaError(
    "upstream.result.unsupported",
    `upstream ${name} answered the ${what} with no result in MCP's shape: ${fault}`,
    `the upstream ${name} answered in no shape MCP gives it: ask the person running rta to check it`,
  );
}

/** Whether `err` refuses an answer as no result of its request's (malformed's to say). */
export function malformedAnswer(err: unknown): boolean {
  return err instanceof InvalidResult || (err instanceof SdkError && err.code === SdkErrorCode.InvalidResult);
}

/** A media block's mime type: the block's own kind, then a subtype of word characters (`image/png`, `audio/mpeg`). */
const MIME = /^(image|audio)\/[a-z0-9][a-z0-9.+-]{0,63}$/i;
/** Image types that are documents (SVG, and any XML, which may name a stylesheet or hold SVG). */
const SCRIPTABLE = /^image\/(?:svg|[^;]*\+xml|xml)/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The answer in rta's shapes; refuses upstream.<name>.error for isError,
 * upstream.result.unsupported (a block rta does not pass on, or an image or
 * audio block whose mime type is not its kind's or whose data is not base64),
 * and core.result.toolarge (media past the bound, counted in base64 before
 * anything is decoded).
 */
function normalised(name: string, answer: Answer, secrets: readonly string[], hard: number): ResultValue {
  const blocks = Array.isArray(answer.content) ? answer.content : [];
  const texts: string[] = [];
  const media: MediaBlock[] = [];
  let size = 0;
  for (const block of blocks) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (answer.isError) continue;
    else if (block.type === "image" || block.type === "audio") {
      const mime = typeof block.mimeType === "string" ? block.mimeType : "";
      if (!MIME.test(mime) || !mime.toLowerCase().startsWith(`${block.type}/`))
        throw unsupported(
          name,
          `an ${block.type} block whose mime type ${JSON.stringify(mime.slice(0, 80))} is not an ${block.type}'s`,
        );
      // an SVG is a document: it can carry script, run where a client shows it
      if (SCRIPTABLE.test(mime)) throw unsupported(name, `an ${block.type} block of ${mime}, which can carry script`);
      const data = block.data;
      if (typeof data !== "string") throw unsupported(name, `an ${block.type} block with no data`);
      size += data.length;
      if (size > hard) throw tooLarge(size, hard);
      if (!BASE64.test(data)) throw unsupported(name, `an ${block.type} block whose data is not base64`);
      // the operator's secrets are masked out of text; in data, masking would break it, so the block is refused
      if (secrets.some((secret) => secret !== "" && data.includes(secret)))
        throw unsupported(name, `an ${block.type} block holding one of the operator's secrets`);
      media.push({ kind: block.type, mimeType: mime, data });
    } else
      throw unsupported(name, `a ${JSON.stringify(String(block.type).slice(0, 40))} block, which rta does not pass on`);
  }
  if (answer.isError) throw upstreamError(name, texts.join("\n"), secrets);
  if (media.length > 0) return { type: "media", text: masked(texts.join("\n"), secrets), blocks: media };
  if (answer.structuredContent !== undefined && answer.structuredContent !== null) {
    const value = JSON.parse(masked(JSON.stringify(answer.structuredContent), secrets)) as Record<string, unknown>;
    return { type: "object", value };
  }
  return { type: "text", text: masked(texts.join("\n"), secrets) };
}

function unsupported(name: string, what: string): RtaError {
  return new RtaError(
    "upstream.result.unsupported",
    `upstream ${name} answered with ${what}`,
    "ask for an answer in text, an image or audio",
  );
}
