/**
 * An upstream's image and audio blocks as an MCP client is sent them: after
 * rta's one text block, as the upstream sent them. Every protocol revision
 * has image blocks; audio blocks came with 2025-03-26, so audio for a client
 * that settled on an older revision is refused.
 */
import { RtaError } from "../core/errors.ts";
import { errorResult, type MediaResult, mediaBytes } from "../core/result.ts";

/** An image or audio block of a tools/call result. */
export interface MediaContent {
  type: "image" | "audio";
  data: string;
  mimeType: string;
}

/** The first protocol revision whose clients take an audio block (image blocks every revision takes). */
const AUDIO_SINCE = "2025-03-26";

/**
 * An upstream's media answer as MCP blocks: a text block saying what follows
 * (its text, and each block's kind, type and size), then each block as the
 * upstream sent it. Audio to a client from before audio blocks is refused.
 */
export function mediaAnswer(
  value: MediaResult,
  version: string | undefined,
): { content: [{ type: "text"; text: string }, ...MediaContent[]]; isError?: true } {
  if (value.blocks.some((b) => b.kind === "audio") && version !== undefined && version < AUDIO_SINCE) {
    const refused = new RtaError(
      "upstream.result.unsupported",
      `the upstream answered with audio, which this client's protocol revision (${version}) has no block for`,
      "ask for an answer in text",
    );
    return { content: [{ type: "text", text: JSON.stringify(errorResult(refused)) }], isError: true };
  }
  const said = {
    type: "media",
    text: value.text,
    blocks: value.blocks.map((b) => ({ kind: b.kind, mimeType: b.mimeType, bytes: mediaBytes(b) })),
  };
  return {
    content: [
      { type: "text", text: JSON.stringify(said) },
      ...value.blocks.map((b): MediaContent => ({ type: b.kind, data: b.data, mimeType: b.mimeType })),
    ],
  };
}
