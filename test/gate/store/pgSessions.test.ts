/**
 * The session rows of gate/store/pgSessions.ts: the codec (what an initialize's params keep, a row written and read
 * back, a row that holds no session refused), then the statements against a real server (test/support/pg.ts).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { keptClient, type SessionRow, sessionColumns, sessionOfRow } from "../../../src/gate/store/pgSessions.ts";
import { PgGateStore } from "../../../src/gate/store/pgStore.ts";
import { pgServer } from "../../support/pg.ts";

const ROW: SessionRow = {
  id: "3b241101-e2bb-4255-8caf-4136c566a962",
  agent: "claude",
  protocol: "2025-11-25",
  client: { name: "Claude Code", version: "2.1.0" },
  capabilities: { roots: { listChanged: true }, elicitation: { form: {} } },
  createdAt: 1_800_000_000_000,
  lastUsed: 1_800_000_000_500,
};

/** A row as the store hands it back: the columns by name, bigints as text. */
function stored(s: SessionRow): Record<string, unknown> {
  const [id, agent, protocol, client, capabilities, created, used] = sessionColumns(s);
  return { id, agent, protocol, client, capabilities, created_at: String(created), last_used: String(used) };
}

describe("the row codec", () => {
  test("a row written is read back as it was", () => {
    expect(sessionOfRow(stored(ROW))).toEqual(ROW);
  });

  test("initialize's params keep the client's name, version and title, cut, and only the capabilities asked of it", () => {
    const kept = keptClient({
      protocolVersion: "2025-11-25",
      clientInfo: { name: "x".repeat(1000), version: "1", title: "T", icons: [{ src: "a" }], website: 3 },
      capabilities: { roots: {}, sampling: { tools: {} }, experimental: { big: "y" }, elicitation: "yes", tasks: {} },
    });
    expect(kept.client).toEqual({ name: "x".repeat(256), version: "1", title: "T" });
    expect(kept.capabilities).toEqual({ roots: {}, sampling: { tools: {} } });
  });

  test("a capability too large to keep is kept as declared, without its detail", () => {
    const kept = keptClient({ capabilities: { elicitation: { form: { pad: "z".repeat(5000) } } } });
    expect(kept.capabilities).toEqual({ elicitation: {} });
  });

  test("params that are no object keep nothing", () => {
    for (const params of [undefined, null, "x", [1], { clientInfo: "x", capabilities: [1] }])
      expect(keptClient(params)).toEqual({ client: {}, capabilities: {} });
  });

  test("a row that holds no session is refused, not half read", () => {
    const good = stored(ROW);
    for (const broken of [
      { ...good, id: null },
      { ...good, agent: 7 },
      { ...good, client: "{not json" },
      { ...good, client: "[]" },
      { ...good, client: '{"name":3}' },
      { ...good, capabilities: "null" },
      { ...good, created_at: "soon" },
      { ...good, last_used: undefined },
    ])
      expect(sessionOfRow(broken)).toBeUndefined();
  });

  test("no column of a row holds anything but the session's own fields", () => {
    expect(sessionColumns(ROW)).toEqual([
      ROW.id,
      "claude",
      "2025-11-25",
      JSON.stringify(ROW.client),
      JSON.stringify(ROW.capabilities),
      ROW.createdAt,
      ROW.lastUsed,
    ]);
  });
});

const pg = await pgServer();
const opened: PgGateStore[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

describe.skipIf(pg === null)("the session rows in PostgreSQL", () => {
  async function rowsOf() {
    const url = await (pg?.freshDb() as Promise<string>);
    const a = new PgGateStore(url);
    const b = new PgGateStore(url);
    opened.push(a, b);
    return [a.sessionRows(), b.sessionRows()] as const;
  }
  const row = (id: string, agent: string, lastUsed: number): SessionRow => ({ ...ROW, id, agent, lastUsed });

  test("one replica's row is another's: touched, counted, its least used found, removed once", async () => {
    const [a, b] = await rowsOf();
    a.put(row("s1", "claude", 10));
    a.put(row("s2", "claude", 20));
    b.put(row("s3", "cursor", 5));
    a.put(row("s1", "cursor", 99)); // an id is never taken over
    expect(b.touch("s1", "cursor", 50)).toBeUndefined();
    expect(b.touch("s1", "claude", 50)).toEqual(row("s1", "claude", 50));
    expect(a.touch("s1", "claude", 40)?.lastUsed).toBe(50); // a clock behind does not move it back
    expect(b.count("claude")).toEqual({ own: 2, total: 3 });
    expect(a.leastUsed("claude", [])).toBe("s2");
    expect(a.leastUsed("claude", ["s2"])).toBe("s1");
    expect(a.leastUsed("claude", ["s1", "s2"])).toBeUndefined();
    expect(b.remove("s2")).toBe(true);
    expect(a.remove("s2")).toBe(false);
    expect(a.removeIdle(10)).toEqual(["s3"]);
    expect(b.removeAgent("claude")).toEqual(["s1"]);
    expect(a.count("claude")).toEqual({ own: 0, total: 0 });
  });
});
