/** whenSent: what a request held is given back once its answer has left, and a client gone early is told apart. */
import { describe, expect, test } from "bun:test";
import { whenSent } from "../../../src/mcp/http/answers.ts";

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
