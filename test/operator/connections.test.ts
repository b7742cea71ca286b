/**
 * A connection to the operator channel that sends requests and never reads its replies: the replies, which are never
 * dropped as events are, are queued only to a bound, then the connection is ended, so a flood of requests cannot
 * spend the server's memory.
 */
import { describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { Connection, QUEUE_BYTES } from "../../src/operator/connections.ts";

/** A socket whose reader never reads: nothing is written after `room` bytes. */
function stuckSocket(room: number) {
  const s = { wrote: 0, terminated: false };
  const socket = {
    write(bytes: Uint8Array) {
      const n = Math.max(0, Math.min(bytes.length, room - s.wrote));
      s.wrote += n;
      return n;
    },
    terminate() {
      s.terminated = true;
    },
  } as unknown as Socket<unknown>;
  return { s, socket };
}

describe("a connection that never reads", () => {
  test("has its replies queued to a bound, then is ended", () => {
    const { s, socket } = stuckSocket(4096);
    const c = new Connection(socket, (n) => `{"event":"dropped","count":${n}}`);
    const reply = JSON.stringify({ reply: "invalid", ok: false, padding: "x".repeat(100) });
    const lines = Math.ceil((3 * QUEUE_BYTES) / reply.length);
    for (let i = 0; i < lines; i++) c.send(reply, true);
    expect(s.terminated).toBe(true);
    // and what it was sent after is not kept
    for (let i = 0; i < 1000; i++) c.send(reply, true);
    c.drain();
    expect(s.wrote).toBeLessThan(2 * QUEUE_BYTES + 4096);
  });

  test("one that reads keeps every reply, and its dropped events are told", () => {
    const { s, socket } = stuckSocket(Number.MAX_SAFE_INTEGER);
    const c = new Connection(socket, (n) => `{"event":"dropped","count":${n}}`);
    for (let i = 0; i < 10_000; i++) c.send("x".repeat(500), true);
    expect(s.terminated).toBe(false);
    expect(s.wrote).toBe(10_000 * 501);
  });
});
