import { describe, expect, test } from "bun:test";
import { InFlight, readBody, type Ticket } from "../../../src/mcp/http/limits.ts";
import { holdsTooManyValues, PAST_COUNT_MESSAGES, REQUEST_LIMIT_BYTES } from "../../../src/mcp/requestValues.ts";

const KiB = 1024;

function ticket(inFlight: InFlight, agent: string): Ticket {
  const t = inFlight.admit(agent);
  if ("status" in t) throw new Error(`refused: ${t.message}`);
  return t;
}

/** A request whose body is the given chunks, sent as they are asked for, and then never ends when `stall`. */
function request(chunks: Uint8Array[], headers: Record<string, string> = {}, stall = false): Request {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++] as Uint8Array);
      else if (!stall) c.close();
      else return new Promise(() => {});
    },
  });
  return new Request("http://127.0.0.1/mcp", { method: "POST", headers, body });
}

describe("InFlight", () => {
  test("an agent past its requests in flight is let in only to carry no request, a few times; a slot given back is free again", () => {
    const f = new InFlight(100, 50, 2);
    const a = ticket(f, "a");
    ticket(f, "a");
    for (let i = 0; i < PAST_COUNT_MESSAGES; i++) expect(f.admit("a")).toMatchObject({ past: true });
    expect(f.admit("a")).toMatchObject({ status: 429 });
    expect("status" in f.admit("b")).toBe(false);
    a.release();
    a.release(); // once only
    expect(f.admit("a")).toMatchObject({ past: false });
    expect(f.admit("a")).toMatchObject({ status: 429 });
  });

  test("bytes past an agent's share are 429; past the server's total 503; a refusal reserves nothing", () => {
    const f = new InFlight(100, 60, 10);
    const a = ticket(f, "a");
    expect(a.reserve(60)).toBeUndefined();
    expect(a.reserve(1)).toMatchObject({ status: 429 });
    const b = ticket(f, "b");
    expect(b.reserve(40)).toBeUndefined();
    expect(ticket(f, "c").reserve(1)).toMatchObject({ status: 503 });
    expect(f.heldBytes).toBe(100);
    a.release();
    expect(f.heldBytes).toBe(40);
    expect(ticket(f, "c").reserve(60)).toBeUndefined();
  });
});

describe("readBody", () => {
  test("a declared length is reserved before a byte is read, and the body comes back whole", async () => {
    const f = new InFlight();
    const t = ticket(f, "a");
    const out = await readBody(request([new Uint8Array([1, 2]), new Uint8Array([3])], { "content-length": "3" }), t);
    expect(out).toEqual({ kind: "read", body: new Uint8Array([1, 2, 3]) });
    expect(f.heldBytes).toBe(3);
  });

  test("a declared length past the limit is too large without reading or reserving", async () => {
    const f = new InFlight();
    const out = await readBody(
      request([], { "content-length": String(REQUEST_LIMIT_BYTES + 1) }, true),
      ticket(f, "a"),
    );
    expect(out.kind).toBe("toolarge");
    expect(f.heldBytes).toBe(0);
  });

  test("a body with no length is reserved chunk by chunk and refused at the share", async () => {
    const f = new InFlight(1024 * KiB, 100 * KiB, 10);
    const chunks = Array.from({ length: 5 }, () => new Uint8Array(30 * KiB));
    const out = await readBody(request(chunks), ticket(f, "a"));
    expect(out).toMatchObject({ kind: "refused", refusal: { status: 429 } });
  });

  test("a body past the limit while it streams is too large", async () => {
    const chunk = new Uint8Array(1024 * KiB);
    const out = await readBody(request([chunk, chunk, chunk, chunk, chunk]), ticket(new InFlight(), "a"));
    expect(out.kind).toBe("toolarge");
  });

  test("a body that stops arriving is late at the deadline", async () => {
    const out = await readBody(
      request([new Uint8Array(10)], { "content-length": "100" }, true),
      ticket(new InFlight(), "a"),
      50,
    );
    expect(out.kind).toBe("late");
  });
});

describe("holdsTooManyValues", () => {
  test("counts every member of every object and array, and stops past the limit", () => {
    expect(holdsTooManyValues({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { a: 1 } }, 10)).toBe(false);
    expect(holdsTooManyValues({ a: [1, 2, 3], b: { c: [4, 5] } }, 9)).toBe(false);
    expect(holdsTooManyValues({ a: [1, 2, 3], b: { c: [4, 5] } }, 8)).toBe(true);
    expect(
      holdsTooManyValues(
        Array.from({ length: 5 }, () => ({})),
        5,
      ),
    ).toBe(true);
    expect(holdsTooManyValues(undefined)).toBe(false);
  });

  test("a deep request is walked without recursion", () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(holdsTooManyValues(deep)).toBe(true);
    expect(holdsTooManyValues(deep, 200_000)).toBe(false);
  });
});
