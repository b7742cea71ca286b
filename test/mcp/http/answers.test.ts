/**
 * whenSent: what a request held is given back once its answer has left, and a client gone early is told apart.
 * opened: a GET stream's headers leave at once, carried by an SSE comment.
 */
import { describe, expect, test } from "bun:test";
import { opened, whenSent } from "../../../src/mcp/http/answers.ts";

const said: string[] = [];
const wrap = (res: Response) =>
  whenSent(
    res,
    () => said.push("done"),
    () => said.push("gone"),
  );

describe("whenSent", () => {
  test("an answer read to its end is done, and its client not gone", async () => {
    said.length = 0;
    expect(await wrap(new Response("all of it")).text()).toBe("all of it");
    expect(said).toEqual(["done"]);
  });

  test("an answer with no body is done at once", () => {
    said.length = 0;
    wrap(new Response(null, { status: 202 }));
    expect(said).toEqual(["done"]);
  });

  test("a client that leaves before the end is gone, then done", async () => {
    said.length = 0;
    const endless = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    await wrap(new Response(endless)).body?.cancel();
    expect(said).toEqual(["gone", "done"]);
  });
});

describe("opened", () => {
  test("an event stream starts with a comment, then carries the stream's own bytes, headers and status kept", async () => {
    const res = opened(
      new Response("data: one\n\n", { status: 200, headers: { "content-type": "text/event-stream", "x-kept": "1" } }),
    );
    expect(res.headers.get("x-kept")).toBe("1");
    expect(await res.text()).toBe(": open\n\ndata: one\n\n");
  });

  test("the comment is there before the stream says anything, and a client leaving cancels the stream", async () => {
    let cancelled = false;
    const silent = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => {
        cancelled = true;
      },
    });
    const reader = opened(new Response(silent, { headers: { "content-type": "text/event-stream" } })).body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe(": open\n\n");
    await reader?.cancel();
    expect(cancelled).toBe(true);
  });

  test("any other response is the same one", () => {
    const json = new Response("{}", { headers: { "content-type": "application/json" } });
    expect(opened(json)).toBe(json);
    const none = new Response(null, { status: 202, headers: { "content-type": "text/event-stream" } });
    expect(opened(none)).toBe(none);
  });
});
