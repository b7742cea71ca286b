import { afterAll, describe, expect, test } from "bun:test";
import { boundedFetch, TooLarge } from "../../src/upstreams/httpTransport.ts";

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/declared") return new Response("x".repeat(4096), { headers: { "content-length": "4096" } });
    if (path === "/streamed")
      return new Response(
        new ReadableStream({
          pull(controller) {
            controller.enqueue(new Uint8Array(1024).fill(120));
          },
        }),
      );
    if (path === "/events")
      // many events, each within the bound, and more than the bound in all: a GET's stream for a long session
      return new Response(`${"data: small\r\n\r\n".repeat(400)}data: ${"y".repeat(1000)}\n\n`);
    if (path === "/giant") {
      // one event that never ends
      let first = true;
      return new Response(
        new ReadableStream({
          pull(controller) {
            controller.enqueue(new TextEncoder().encode(first ? "data: " : "y".repeat(1024)));
            first = false;
          },
        }),
      );
    }
    if (path === "/elsewhere") return Response.redirect("http://127.0.0.2:9/mcp", 307);
    return new Response("small");
  },
});
afterAll(() => server.stop(true));
const at = (path: string) => `http://127.0.0.1:${server.port}${path}`;

describe("an HTTP upstream's answers", () => {
  const fetch = boundedFetch(2048);
  test("one within the bound is read whole", async () => {
    expect(await (await fetch(at("/small"), { method: "POST" })).text()).toBe("small");
  });

  test("one declared past the bound is refused from its header", async () => {
    await expect(fetch(at("/declared"), { method: "POST" })).rejects.toBeInstanceOf(TooLarge);
  });

  test("one that never ends is cut once it passes the bound, never held whole", async () => {
    const response = await fetch(at("/streamed"), { method: "POST" });
    await expect(response.text()).rejects.toBeInstanceOf(TooLarge);
  });

  test("a redirect is never followed, so a bearer header goes to no other origin", async () => {
    await expect(fetch(at("/elsewhere"), { method: "POST" })).rejects.toThrow();
  });

  test("a GET's stream is passed on while each event is within the bound, however long it runs", async () => {
    const body = await (await fetch(at("/events"))).text();
    expect(body.length).toBeGreaterThan(2048);
  });

  test("a GET's stream is cut once one event passes the bound, and the cut is told", async () => {
    const cuts: number[] = [];
    const response = await boundedFetch(2048, (size) => cuts.push(size))(at("/giant"));
    await expect(response.text()).rejects.toBeInstanceOf(TooLarge);
    expect(cuts).toHaveLength(1);
  });
});
