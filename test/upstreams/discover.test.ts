import { describe, expect, test } from "bun:test";
import { ProtocolError } from "@modelcontextprotocol/client";
import type { UpstreamRef } from "../../src/core/capability.ts";
import { RtaError } from "../../src/core/errors.ts";
import { callUpstream } from "../../src/upstreams/call.ts";
import type { UpstreamConnection } from "../../src/upstreams/connection.ts";
import { discover, MAX_PAGES } from "../../src/upstreams/discover.ts";
import { UpstreamStdioTransport } from "../../src/upstreams/stdioTransport.ts";

/** A connection whose client answers tools/list with `page(cursor)`, and tools/call (its own or the client's) with `call()`. */
function fake(
  page: (cursor: string | undefined) => unknown,
  call: () => Promise<unknown> = async () => ({}),
): UpstreamConnection & { dropped: number } {
  const c = {
    dropped: 0,
    connected: async () => ({
      request: async (req: { params: { cursor?: string } }) => page(req.params.cursor),
      callTool: call,
    }),
    callTool: call,
    drop() {
      c.dropped += 1;
    },
    takeCut: () => undefined,
  };
  return c as never;
}

const t = (name: string) => ({ name, inputSchema: { type: "object" } });

describe("discovery, bounded", () => {
  test("pages are walked to the end", async () => {
    const found = await discover(
      fake((cursor) => {
        const at = Number(cursor ?? 0);
        return { tools: [t(`t${at}`)], ...(at < 4 ? { nextCursor: String(at + 1) } : {}) };
      }),
      1000,
    );
    expect(found.ok && found.tools.map((x) => x.name)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
  });

  test(`past ${MAX_PAGES} pages, a repeated cursor, a name twice, 10,000 tools or 10 MiB fail the upstream`, async () => {
    const endless = await discover(
      fake((c) => ({ tools: [], nextCursor: `${Number(c ?? 0) + 1}` })),
      1000,
    );
    expect(endless).toEqual({ ok: false, reason: "its tools/list ran past 100 pages" });
    const loop = await discover(
      fake((c) => ({ tools: c ? [] : [t("a")], nextCursor: "same" })),
      1000,
    );
    expect(loop).toEqual({ ok: false, reason: "its tools/list repeated a cursor (it would never end)" });
    const twice = await discover(
      fake((c) => ({ tools: [t("a")], ...(c ? {} : { nextCursor: "2" }) })),
      1000,
    );
    expect(twice).toEqual({ ok: false, reason: 'it lists the tool "a" twice' });
    const many = await discover(
      fake(() => ({ tools: Array.from({ length: 10_001 }, (_, i) => t(`t${i}`)) })),
      1000,
    );
    expect(many).toEqual({ ok: false, reason: "it lists more than 10000 tools" });
    const wordy = { name: "w", description: "x".repeat(1024 * 1024), inputSchema: { type: "object" } };
    const big = await discover(
      fake((c) => ({ tools: [{ ...wordy, name: `w${c ?? 0}` }], nextCursor: `${Number(c ?? 0) + 1}` })),
      1000,
    );
    expect(big).toEqual({ ok: false, reason: "its tools/list ran past 10 MiB of JSON" });
  });

  test("a failure is said in words naming nothing of the upstream", async () => {
    const slow = fake(() => {
      throw Object.assign(new Error("Request timed out after 10000ms to http://10.1.2.3/mcp"), {
        code: "REQUEST_TIMEOUT",
      });
    });
    expect(await discover(slow, 1000)).toEqual({ ok: false, reason: "it did not answer in time" });
    const gone = fake(() => {
      throw new Error("connect ECONNREFUSED 10.1.2.3:443");
    });
    expect(await discover(gone, 1000)).toEqual({ ok: false, reason: "it could not be reached, or stopped" });
  });
});

describe("a call", () => {
  const ref: UpstreamRef = { name: "up", tool: "t", digest: "0", inputSchema: { type: "object" } };
  const limits = { callMs: 1000, hard: 1024 };
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      return err as RtaError;
    }
    throw new Error("it was not refused");
  };

  test("an upstream's error is upstream.<name>.error with the operator's secrets masked", async () => {
    const c = fake(
      () => ({}),
      async () => {
        throw new ProtocolError(-32602, "bad token s3cr3t-token");
      },
    );
    const err = await refusal(callUpstream(c, ref, {}, new AbortController().signal, ["s3cr3t-token"], limits));
    expect(err).toBeInstanceOf(RtaError);
    expect(err.code as string).toBe("upstream.up.error");
    expect(err.message).not.toContain("s3cr3t-token");
    expect(c.dropped).toBe(0);
  });

  test("a connection gone mid-call is upstream.unavailable, and dropped so a later call connects again", async () => {
    const c = fake(
      () => ({}),
      async () => {
        throw Object.assign(new Error("Connection closed"), { code: "CONNECTION_CLOSED" });
      },
    );
    const err = await refusal(callUpstream(c, ref, {}, new AbortController().signal, [], limits));
    expect(err.message).toBe("upstream up is unavailable: it could not be reached, or stopped");
    expect(c.dropped).toBe(1);
  });

  test("a timeout is upstream.unavailable, and the connection is kept for other calls", async () => {
    const c = fake(
      () => ({}),
      async () => {
        throw Object.assign(new Error("timed out: node /srv/secret-server.js"), { code: "REQUEST_TIMEOUT" });
      },
    );
    const err = await refusal(callUpstream(c, ref, {}, new AbortController().signal, [], limits));
    expect(err.code).toBe("upstream.unavailable");
    expect(err.message).toBe("upstream up is unavailable: it did not answer in time");
    expect(c.dropped).toBe(0);
  });

  test("a cancelled call is core.call.cancelled", async () => {
    const ac = new AbortController();
    const c = fake(
      () => ({}),
      async () => {
        ac.abort();
        throw new Error("aborted");
      },
    );
    expect((await refusal(callUpstream(c, ref, {}, ac.signal, [], limits))).code).toBe("core.call.cancelled");
  });

  test("text, structured content and other blocks", async () => {
    const answer = (a: unknown) =>
      fake(
        () => ({}),
        async () => a,
      );
    const signal = new AbortController().signal;
    expect(
      await callUpstream(
        answer({
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        }),
        ref,
        {},
        signal,
        [],
        limits,
      ),
    ).toEqual({ type: "text", text: "a\nb" });
    expect(
      await callUpstream(
        answer({ content: [], structuredContent: { k: "tok1234" } }),
        ref,
        {},
        signal,
        ["tok1234"],
        limits,
      ),
    ).toEqual({ type: "object", value: { k: "<upstream secret>" } });
    const image = answer({ content: [{ type: "image", data: "AA", mimeType: "image/png" }] });
    expect((await refusal(callUpstream(image, ref, {}, signal, [], limits))).code).toBe("upstream.result.unsupported");
    const failed = answer({ content: [{ type: "text", text: "no such file" }], isError: true });
    expect(await refusal(callUpstream(failed, ref, {}, signal, [], limits))).toMatchObject({
      code: "upstream.up.error",
      message: "no such file",
    });
  });
});

describe("the stdio transport", () => {
  test("a line past the bound ends the connection before it is held whole", async () => {
    const transport = new UpstreamStdioTransport({
      command: ["sh", "-c", "head -c 104857600 /dev/zero | tr '\\0' x"],
      env: {},
      home: "/",
      maxMessage: 1024 * 1024,
    });
    const errors: Error[] = [];
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    transport.onerror = (err) => errors.push(err);
    await transport.start();
    await closed;
    expect(errors[0]?.name).toBe("TooLarge");
  });

  test("messages a line each are read, and the child gets only PATH, LANG, HOME and its env", async () => {
    const transport = new UpstreamStdioTransport({
      command: [
        "sh",
        "-c",
        'printf \'{"jsonrpc":"2.0","method":"x","params":{"e":"%s|%s"}}\\n\' "$SECRET_OF_RTA" "$MINE"',
      ],
      env: { MINE: "given" },
      home: "/",
      maxMessage: 1024,
    });
    process.env.SECRET_OF_RTA = "leaked";
    const got: unknown[] = [];
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    transport.onmessage = (m) => got.push(m);
    await transport.start();
    await closed;
    delete process.env.SECRET_OF_RTA;
    expect(got).toEqual([{ jsonrpc: "2.0", method: "x", params: { e: "|given" } }]);
  });
});
