import { describe, expect, test } from "bun:test";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { systemClock } from "../../../src/core/deps.ts";
import { type LegacySession, LegacySessions, SESSION_IDLE_MS } from "../../../src/mcp/http/sessions.ts";

/** A transport that only notes it was closed. */
function fakeTransport(closed: string[]) {
  return (id: string) =>
    ({
      close: async () => {
        closed.push(id);
      },
    }) as unknown as WebStandardStreamableHTTPServerTransport;
}

function made(s: LegacySession | { status: number }): LegacySession {
  if ("status" in s) throw new Error(`refused ${s.status}`);
  return s;
}

describe("LegacySessions", () => {
  test("an agent past its share loses its own least recently used idle session, never another agent's", () => {
    let now = 0;
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => now }, { perAgent: 3, total: 100 });
    const alice = made(sessions.make("alice", fakeTransport(closed)));
    const bobs = [1, 2, 3].map(() => {
      now++;
      return made(sessions.make("bob", fakeTransport(closed)));
    });
    now++;
    sessions.use(bobs[0]?.id as string, "bob"); // Bob's first is now his most recently used
    now++;
    made(sessions.make("bob", fakeTransport(closed)));
    expect(closed).toEqual([bobs[1]?.id as string]);
    expect(sessions.use(alice.id, "alice")).toBe(alice);
    expect(sessions.use(alice.id, "bob")).toBeUndefined(); // a session is its opener's only
  });

  test("a busy session is not evicted: the agent's idle one goes instead", () => {
    const closed: string[] = [];
    const sessions = new LegacySessions(systemClock, { perAgent: 2, total: 100 });
    const busy = made(sessions.make("bob", fakeTransport(closed)));
    const idle = made(sessions.make("bob", fakeTransport(closed)));
    busy.busy = 1;
    made(sessions.make("bob", fakeTransport(closed)));
    expect(closed).toEqual([idle.id]);
  });

  test("all busy: 429; at the server's total of live sessions: 503", () => {
    const closed: string[] = [];
    const sessions = new LegacySessions(systemClock, { perAgent: 1, total: 2 });
    made(sessions.make("a", fakeTransport(closed))).busy = 1;
    expect(sessions.make("a", fakeTransport(closed))).toMatchObject({ status: 429 });
    made(sessions.make("b", fakeTransport(closed)));
    expect(sessions.make("c", fakeTransport(closed))).toMatchObject({ status: 503 });
    expect(closed).toEqual([]);
  });

  test("sessions idle past SESSION_IDLE_MS are closed when room is made", () => {
    let now = 0;
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => now }, { perAgent: 5, total: 5 });
    const old = made(sessions.make("a", fakeTransport(closed)));
    now = SESSION_IDLE_MS + 1;
    made(sessions.make("b", fakeTransport(closed)));
    expect(closed).toEqual([old.id]);
  });

  test("time is the clock's: a session used within SESSION_IDLE_MS of the clock is kept", () => {
    let now = 1_000;
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => now }, { perAgent: 5, total: 5 });
    const kept = made(sessions.make("a", fakeTransport(closed)));
    const idle = made(sessions.make("a", fakeTransport(closed)));
    now += SESSION_IDLE_MS;
    sessions.use(kept.id, "a");
    expect(kept.lastUsed).toBe(now);
    now += 1;
    made(sessions.make("b", fakeTransport(closed)));
    expect(closed).toEqual([idle.id]);
    expect(sessions.size).toBe(2);
  });
});
