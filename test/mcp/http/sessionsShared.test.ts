/**
 * LegacySessions over a shared store's rows (an in-memory stand-in for gate/store/pgSessions.ts): the shares count
 * every replica's rows, a copy whose row is gone is dropped at its next use, a row this replica does not hold is
 * handed back to be built again, a stopping server leaves its rows, and a notification goes only to a held stream.
 */
import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { SessionRow, SessionRows } from "../../../src/gate/store/pgSessions.ts";
import { type LegacySession, LegacySessions, SESSION_IDLE_MS } from "../../../src/mcp/http/sessions.ts";

class MemoryRows implements SessionRows {
  readonly rows = new Map<string, SessionRow>();
  put(row: SessionRow): void {
    if (!this.rows.has(row.id)) this.rows.set(row.id, { ...row });
  }
  touch(id: string, agent: string, now: number): SessionRow | undefined {
    const row = this.rows.get(id);
    if (!row || row.agent !== agent) return undefined;
    row.lastUsed = Math.max(row.lastUsed, now);
    return { ...row };
  }
  remove(id: string): boolean {
    return this.rows.delete(id);
  }
  removeAgent(agent: string): string[] {
    const ids = [...this.rows.values()].filter((r) => r.agent === agent).map((r) => r.id);
    for (const id of ids) this.rows.delete(id);
    return ids;
  }
  removeIdle(before: number): string[] {
    const ids = [...this.rows.values()].filter((r) => r.lastUsed < before).map((r) => r.id);
    for (const id of ids) this.rows.delete(id);
    return ids;
  }
  count(agent: string): { own: number; total: number } {
    const all = [...this.rows.values()];
    return { own: all.filter((r) => r.agent === agent).length, total: all.length };
  }
  leastUsed(agent: string, except: string[]): string | undefined {
    return [...this.rows.values()]
      .filter((r) => r.agent === agent && !except.includes(r.id))
      .sort((a, b) => a.lastUsed - b.lastUsed)[0]?.id;
  }
  trim(agent: string, keep: number, except: string[]): string[] {
    const ids = [...this.rows.values()]
      .filter((r) => r.agent === agent && !except.includes(r.id))
      .sort((a, b) => b.lastUsed - a.lastUsed)
      .slice(Math.max(0, keep - except.length))
      .map((r) => r.id);
    for (const id of ids) this.rows.delete(id);
    return ids;
  }
}

const sent: [string, JSONRPCMessage][] = [];
function fakeTransport(closed: string[]) {
  return (id: string) =>
    ({
      close: async () => {
        closed.push(id);
      },
      send: async (m: JSONRPCMessage) => {
        sent.push([id, m]);
      },
    }) as unknown as WebStandardStreamableHTTPServerTransport;
}

function made(s: LegacySession | { status: number }): LegacySession {
  if ("status" in s) throw new Error(`refused ${s.status}`);
  return s;
}

/** A row another replica wrote. */
function remote(rows: MemoryRows, id: string, agent: string, lastUsed: number): void {
  rows.put({ id, agent, protocol: "2025-11-25", client: {}, capabilities: {}, createdAt: lastUsed, lastUsed });
}

/** A session made here, its initialize answered (so its row is written, as front.ts does). */
function open(sessions: LegacySessions, agent: string, closed: string[], now: number): LegacySession {
  const s = made(sessions.make(agent, fakeTransport(closed)));
  sessions.opened({
    id: s.id,
    agent,
    protocol: "2025-11-25",
    client: {},
    capabilities: {},
    createdAt: now,
    lastUsed: now,
  });
  return s;
}

describe("LegacySessions with a shared store", () => {
  test("the agent's share counts other replicas' rows: its least recently used row goes, wherever it is held", () => {
    let now = 10;
    const rows = new MemoryRows();
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => now }, { perAgent: 2, total: 100 }, () => rows);
    remote(rows, "far-old", "bob", 1);
    now = 20;
    const here = open(sessions, "bob", closed, now);
    now = 30;
    open(sessions, "bob", closed, now);
    expect(rows.rows.has("far-old")).toBe(false);
    expect(rows.rows.has(here.id)).toBe(true);
    now = 40;
    open(sessions, "bob", closed, now);
    // the next least recently used is held here: closed here and its row removed
    expect(closed).toEqual([here.id]);
    expect(rows.rows.has(here.id)).toBe(false);
  });

  test("a session busy here is not evicted; none left: 429. The server's total counts every row: 503", () => {
    const rows = new MemoryRows();
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => 5 }, { perAgent: 1, total: 3 }, () => rows);
    open(sessions, "a", closed, 5).busy = 1;
    expect(sessions.make("a", fakeTransport(closed))).toMatchObject({ status: 429 });
    remote(rows, "r1", "x", 5);
    remote(rows, "r2", "y", 5);
    expect(sessions.size).toBe(1);
    expect(sessions.make("c", fakeTransport(closed))).toMatchObject({ status: 503 });
    expect(closed).toEqual([]);
  });

  test("a row not held here is handed back to be built; a copy whose row is gone is dropped; another agent learns nothing", () => {
    const rows = new MemoryRows();
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => 7 }, undefined, () => rows);
    remote(rows, "elsewhere", "bob", 1);
    expect(sessions.use("elsewhere", "bob")).toMatchObject({ row: { id: "elsewhere", agent: "bob", lastUsed: 7 } });
    expect(sessions.use("elsewhere", "eve")).toBeUndefined();
    const mine = open(sessions, "bob", closed, 7);
    expect(sessions.use(mine.id, "eve")).toBeUndefined();
    expect(closed).toEqual([]);
    expect(sessions.use(mine.id, "bob")).toBe(mine);
    rows.remove(mine.id); // a DELETE through another replica
    expect(sessions.use(mine.id, "bob")).toBeUndefined();
    expect(closed).toEqual([mine.id]);
    expect(sessions.size).toBe(0);
  });

  test("a stopping server leaves its rows; a person's end and a locked agent remove them everywhere", () => {
    const rows = new MemoryRows();
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => 1 }, undefined, () => rows);
    const a = open(sessions, "bob", closed, 1);
    remote(rows, "far", "bob", 1);
    remote(rows, "other", "ann", 1);
    sessions.closeAll();
    expect(closed).toEqual([a.id]);
    expect(rows.rows.size).toBe(3);
    expect(sessions.end("other")).toBe(true);
    expect(sessions.end("other")).toBe(false);
    expect(sessions.endAgent("bob")).toBe(2);
    expect(rows.rows.size).toBe(0);
  });

  test("idle: a copy idle here is dropped but its row, used on another replica, is kept; a row idle everywhere goes", () => {
    let now = 0;
    const rows = new MemoryRows();
    const closed: string[] = [];
    const sessions = new LegacySessions({ now: () => now }, undefined, () => rows);
    const used = open(sessions, "bob", closed, 0);
    const idle = open(sessions, "bob", closed, 0);
    now = SESSION_IDLE_MS + 10;
    rows.touch(used.id, "bob", now); // used through another replica
    open(sessions, "ann", closed, now);
    expect(closed.sort()).toEqual([used.id, idle.id].sort());
    expect(rows.rows.has(used.id)).toBe(true);
    expect(rows.rows.has(idle.id)).toBe(false);
  });

  test("a message is delivered only to a session held here with its GET stream open", () => {
    const rows = new MemoryRows();
    const sessions = new LegacySessions({ now: () => 1 }, undefined, () => rows);
    const s = open(sessions, "bob", [], 1);
    const note: JSONRPCMessage = {
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "rta://grants" },
    };
    sent.length = 0;
    expect(sessions.deliver(s.id, note)).toBe(false);
    s.streams = 1;
    expect(sessions.deliver(s.id, note)).toBe(true);
    expect(sessions.deliver("not-here", note)).toBe(false);
    expect(sent).toEqual([[s.id, note]]);
  });

  test("copies whose rows another replica removed are not held past the agent's share", () => {
    let now = 1;
    const rows = new MemoryRows();
    const closedA: string[] = [];
    const closedB: string[] = [];
    const shares = { perAgent: 3, total: 100 };
    const a = new LegacySessions({ now: () => now }, shares, () => rows);
    const b = new LegacySessions({ now: () => now }, shares, () => rows);
    // made on A, then evicted from the store by sessions made on B: A's copies have no row left
    for (let i = 0; i < 3; i++) open(a, "mallory", closedA, now++);
    for (let i = 0; i < 3; i++) open(b, "mallory", closedB, now++);
    expect(rows.count("mallory").own).toBe(3);
    expect(a.size).toBe(3);
    for (let i = 0; i < 20; i++) open(i % 3 === 0 ? a : b, "mallory", i % 3 === 0 ? closedA : closedB, now++);
    expect(rows.count("mallory").own).toBe(3);
    expect(a.size).toBeLessThanOrEqual(3);
    expect(b.size).toBeLessThanOrEqual(3);
    // rebuilt from its row, a copy is held within the share too
    const row = [...rows.rows.values()].find((r) => r.agent === "mallory" && "row" in (a.use(r.id, "mallory") ?? {}));
    const id = (row as SessionRow).id;
    a.adopt({ id, transport: fakeTransport(closedA)(id), agent: "mallory", lastUsed: now, busy: 0, streams: 0 });
    expect(a.size).toBeLessThanOrEqual(3);
    // dropping a copy leaves its row to the replica that uses it
    expect(rows.count("mallory").own).toBe(3);
  });

  test("sessions made at once on two replicas, each counting the rows before the other's were written, leave the agent at its share", () => {
    let now = 1;
    const rows = new MemoryRows();
    const shares = { perAgent: 3, total: 100 };
    const a = new LegacySessions({ now: () => now }, shares, () => rows);
    const b = new LegacySessions({ now: () => now }, shares, () => rows);
    const ended: string[] = [];
    for (const s of [a, b]) s.ended = (id) => ended.push(id);
    const closed: string[] = [];
    for (let i = 0; i < 3; i++) open(a, "mallory", closed, now++);
    const first = [...rows.rows.keys()];
    // both make room against the same rows, then both write theirs
    const both = [a, b].map((s) => ({ s, session: made(s.make("mallory", fakeTransport(closed))) }));
    for (const { s, session } of both)
      s.opened({
        id: session.id,
        agent: "mallory",
        protocol: "2025-11-25",
        client: {},
        capabilities: {},
        createdAt: now,
        lastUsed: now++,
      });
    expect(rows.count("mallory").own).toBe(3);
    for (const { session } of both) expect(rows.rows.has(session.id)).toBe(true);
    // each row trimmed is said ended, so its subscriptions go with it on every replica
    const trimmed = first.filter((id) => !rows.rows.has(id));
    expect(trimmed.length).toBeGreaterThan(0);
    for (const id of trimmed) expect(ended).toContain(id);
  });
});
