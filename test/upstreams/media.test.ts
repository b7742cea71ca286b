import { describe, expect, test } from "bun:test";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { UpstreamRef } from "../../src/core/capability.ts";
import type { RtaError } from "../../src/core/errors.ts";
import { mediaBytes } from "../../src/core/result.ts";
import { mediaAnswer } from "../../src/mcp/mediaAnswer.ts";
import { callUpstream } from "../../src/upstreams/call.ts";
import { checkedCallResult } from "../../src/upstreams/callResult.ts";
import type { UpstreamConnection } from "../../src/upstreams/connection.ts";

/** A connection whose one call answers `answer`. */
function answering(answer: unknown): UpstreamConnection {
  const c = {
    callTool: async () => answer,
    takeCut: () => undefined,
    drop: () => {},
  };
  return c as unknown as UpstreamConnection;
}

/** What checkedCallResult throws for `result`. */
function checkedOf(result: unknown): unknown {
  try {
    checkedCallResult(result);
  } catch (err) {
    return err;
  }
  throw new Error("it was taken");
}

const ref: UpstreamRef = { name: "up", tool: "t", digest: "0", inputSchema: { type: "object" } };
const signal = new AbortController().signal;
const call = (answer: unknown, hard = 1024) =>
  callUpstream(answering(answer), ref, {}, signal, ["sekrit-token"], { callMs: 1000, hard });
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as RtaError;
  }
  throw new Error("it was not refused");
};

describe("an upstream's image and audio blocks", () => {
  test("are passed on with the text beside them, its secrets masked", async () => {
    const value = await call({
      content: [
        { type: "text", text: "see sekrit-token" },
        { type: "image", data: "iVBORw==", mimeType: "image/png" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      ],
    });
    expect(value).toEqual({
      type: "media",
      text: "see <upstream secret>",
      blocks: [
        { kind: "image", mimeType: "image/png", data: "iVBORw==" },
        { kind: "audio", mimeType: "audio/wav", data: "UklGRg==" },
      ],
    });
    if (value.type !== "media") throw new Error("not media");
    expect(value.blocks.map(mediaBytes)).toEqual([4, 4]);
  });

  test("a mime type not the block's kind, data not base64, or past the bound, is refused", async () => {
    const block = (b: Record<string, unknown>) => call({ content: [b] });
    for (const b of [
      { type: "image", data: "AAAA", mimeType: "audio/wav" },
      { type: "audio", data: "AAAA", mimeType: "image/png" },
      { type: "image", data: "AAAA", mimeType: "text/html" },
      // a document that can carry script, however it is spelled
      { type: "image", data: "AAAA", mimeType: "image/svg+xml" },
      { type: "image", data: "AAAA", mimeType: "IMAGE/SVG+XML" },
      { type: "image", data: "AAAA", mimeType: "image/svg" },
      { type: "image", data: "AAAA", mimeType: "image/vnd.other+xml" },
      { type: "image", data: "AAAA" },
      { type: "image", data: "AAAA", mimeType: "image/png\nx" },
      { type: "image", data: "AA", mimeType: "image/png" },
      { type: "image", data: "AA\u0000A", mimeType: "image/png" },
      { type: "image", data: 7, mimeType: "image/png" },
      { type: "resource", resource: { uri: "file:///etc/passwd", text: "x" } },
      { type: "resource_link", uri: "file:///etc/passwd", name: "passwd" },
    ])
      expect((await refusal(block(b))).code).toBe("upstream.result.unsupported");
    // an operator's secret in the data is not masked (that would break it): the block is refused
    const leak = await refusal(
      callUpstream(
        answering({ content: [{ type: "image", data: "c2VrcmlAAAA=", mimeType: "image/png" }] }),
        ref,
        {},
        signal,
        ["c2VrcmlAAAA"],
        {
          callMs: 1000,
          hard: 1024,
        },
      ),
    );
    expect(leak).toMatchObject({ code: "upstream.result.unsupported" });
    expect(leak.message).not.toContain("c2VrcmlAAAA");
    // counted in base64, before anything is decoded: two blocks within the bound apiece, past it together
    const half = "A".repeat(600);
    const past = await refusal(
      call({
        content: [
          { type: "image", data: half, mimeType: "image/png" },
          { type: "image", data: half, mimeType: "image/png" },
        ],
      }),
    );
    expect(past.code).toBe("core.result.toolarge");
  });

  test("an answer refused as no tool's result is the upstream's malformed answer, and keeps the connection", async () => {
    const said = "Invalid result for tools/call: content.0.data: Invalid Base64 string sekrit-token";
    for (const [thrown, message] of [
      // the MCP client's refusal (its words may quote the upstream: not passed on)
      [
        new SdkError(SdkErrorCode.InvalidResult, said),
        "upstream up answered the call with no result in MCP's shape: a block's data is not base64",
      ],
      [
        new SdkError(SdkErrorCode.InvalidResult, "Invalid result: sekrit-token"),
        "upstream up answered the call with no result in MCP's shape: the MCP client refused it",
      ],
      // rta's own reading of a call's answer
      [
        checkedOf({ content: [{ type: "video" }] }),
        "upstream up answered the call with no result in MCP's shape: a content block of no known type",
      ],
    ] as const) {
      let dropped = 0;
      const connection = {
        callTool: async () => {
          throw thrown;
        },
        takeCut: () => undefined,
        drop: () => {
          dropped++;
        },
      } as unknown as UpstreamConnection;
      const err = await refusal(
        callUpstream(connection, ref, {}, signal, ["sekrit-token"], { callMs: 1000, hard: 1024 }),
      );
      expect(err.code).toBe("upstream.result.unsupported");
      expect(err.message).toBe(message);
      expect(err.message).not.toContain("sekrit");
      expect(dropped).toBe(0);
    }
  });

  test("go to a client as blocks after rta's text; audio not to one from before audio blocks", () => {
    const media = {
      type: "media" as const,
      text: "t",
      blocks: [
        { kind: "image" as const, mimeType: "image/png", data: "iVBORw==" },
        { kind: "audio" as const, mimeType: "audio/wav", data: "UklGRg==" },
      ],
    };
    const sent = mediaAnswer(media, "2025-11-25");
    expect(sent.content.slice(1)).toEqual([
      { type: "image", data: "iVBORw==", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    ]);
    expect(mediaAnswer(media, undefined).isError).toBeUndefined();
    const old = mediaAnswer(media, "2024-11-05");
    expect(old.isError).toBe(true);
    expect(JSON.parse(old.content[0].text)).toMatchObject({ code: "upstream.result.unsupported" });
    expect(mediaAnswer({ ...media, blocks: [media.blocks[0] as (typeof media.blocks)[0]] }, "2024-11-05").isError).toBe(
      undefined,
    );
  });
});
