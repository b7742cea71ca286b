/**
 * Subscriptions in process, on a fixed clock, each look made by calling
 * tick() (the timer's work) and waiting for its reads: what is told, and
 * when nothing is.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProtocolError } from "@modelcontextprotocol/server";
import { builtins } from "../../src/capabilities/builtins.ts";
import type { AgentOrigin } from "../../src/core/call.ts";
import { EMPTY_CONFIG } from "../../src/core/config.ts";
import { agentLimits } from "../../src/gate/bound.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { toolListings } from "../../src/mcp/describe.ts";
import { POLL_MS, watchIn } from "../../src/mcp/subscriptionReads.ts";
import { MAX_SUBSCRIPTIONS, Subscriptions, type Watcher } from "../../src/mcp/subscriptions.ts";
import { readTemplates } from "../../src/mcp/templates.ts";
import { fixedClock, grantFor, tempDir, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const claude: AgentOrigin = { kind: "agent", name: "claude", client: "test", session: "s", transport: "stdio" };
const catalogue = catalogueOf(builtins);
const open: Subscriptions[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** A connection's subscriptions over a fresh store and one root, on a clock the test moves. */
function connection() {
  const root = tempDir();
  const base = testDeps();
  const deps = { ...base, roots: new PathGate([root], base.roots.rules) };
  const clock = fixedClock(1_700_000_000_000);
  deps.clock = clock;
  const tools = toolListings(catalogue, EMPTY_CONFIG, (t) => t);
  const place = { deps, catalogue, limits: agentLimits(), reads: () => readTemplates(catalogue, tools) };
  const subs = new Subscriptions(() => clock.now());
  subs.use(watchIn(place));
  open.push(subs);
  const told: string[] = [];
  subs.onUpdate((uri) => told.push(uri));
  /** One look, the clock moved on by `ms` first. */
  const look = (ms = 250) => {
    clock.set(clock.now() + ms);
    return subs.tick();
  };
  return { root, deps, subs, told, look, clock };
}

describe("rta://grants", () => {
  test("told of this agent's grant issued and revoked, not of another agent's, once each", async () => {
    const c = connection();
    await c.subs.subscribe("rta://grants", claude);
    await c.look();
    expect(c.told).toEqual([]);
    const g = grantFor(c.deps, { target: "fs.write" });
    await c.look();
    expect(c.told).toEqual(["rta://grants"]);
    await c.look();
    grantFor(c.deps, { target: "fs.write", agent: "someone-else" });
    await c.look();
    expect(c.told).toEqual(["rta://grants"]);
    c.deps.gate().revoke({ id: g.id }, c.clock.now());
    await c.look();
    expect(c.told).toEqual(["rta://grants", "rta://grants"]);
  });

  test("told when a grant's time runs out, with no commit to say so", async () => {
    const c = connection();
    grantFor(c.deps, { target: "fs.write", expires_at: c.clock.now() + 1000 });
    await c.subs.subscribe("rta://grants", claude);
    await c.look();
    expect(c.told).toEqual([]);
    await c.look(1000);
    expect(c.told).toEqual(["rta://grants"]);
  });

  test("a locked agent is told nothing; once the lock is lifted, what changed meanwhile is told", async () => {
    const c = connection();
    await c.subs.subscribe("rta://grants", claude);
    const now = c.clock.now();
    c.deps.gate().lock({ agent: "claude", target: null, issued_at: now, expires_at: null, issued_by: "test" });
    await c.look();
    grantFor(c.deps, { target: "fs.write" });
    for (let i = 0; i < 4; i++) await c.look(POLL_MS);
    expect(c.told).toEqual([]);
    c.deps.gate().lift({ agent: "claude" }, c.clock.now());
    await c.look(POLL_MS);
    expect(c.told).toEqual(["rta://grants"]);
  });
});

describe("a file read", () => {
  test("told of an append, of a rename over the file, and of an append to what replaced it", async () => {
    const c = connection();
    const file = join(c.root, "app.log");
    writeFileSync(file, "one\n");
    const uri = "rta://fs/read/app.log";
    await c.subs.subscribe(uri, claude);
    await c.look();
    expect(c.told).toEqual([]);
    const lines = c.deps.record.lines.length;
    appendFileSync(file, "two\n");
    await c.look();
    expect(c.told).toEqual([uri]);
    // read again through the pipeline, on the record as a resource read
    expect(c.deps.record.lines.slice(lines).map((l) => [l.capability, l.outcome, l.via])).toEqual([
      ["fs_read", "ok", "resource"],
    ]);
    writeFileSync(join(c.root, "next"), "fresh\n");
    renameSync(join(c.root, "next"), file);
    await c.look();
    expect(c.told).toEqual([uri, uri]);
    appendFileSync(file, "more\n");
    await c.look();
    expect(c.told).toEqual([uri, uri, uri]);
  });

  test("a file removed is told once (its read now fails), and again when one is put back", async () => {
    const c = connection();
    const file = join(c.root, "gone.txt");
    writeFileSync(file, "one\n");
    const uri = "rta://fs/stat/gone.txt";
    await c.subs.subscribe(uri, claude);
    unlinkSync(file);
    await c.look();
    await c.look();
    expect(c.told).toEqual([uri]);
    writeFileSync(file, "back\n");
    await c.look();
    expect(c.told).toEqual([uri, uri]);
  });

  test("a change that leaves the answer as it was tells nothing (a touch)", async () => {
    const c = connection();
    const file = join(c.root, "same.txt");
    writeFileSync(file, "one\n");
    await c.subs.subscribe("rta://fs/read/same.txt", claude);
    writeFileSync(file, "one\n");
    await c.look();
    expect(c.told).toEqual([]);
  });

  test("a lock on its area keeps it silent, and records no refusal for it", async () => {
    const c = connection();
    const file = join(c.root, "notes.txt");
    writeFileSync(file, "one\n");
    await c.subs.subscribe("rta://fs/read/notes.txt", claude);
    const lines = c.deps.record.lines.length;
    const now = c.clock.now();
    c.deps.gate().lock({ agent: "claude", target: "fs", issued_at: now, expires_at: null, issued_by: "test" });
    appendFileSync(file, "two\n");
    await c.look();
    await c.look(POLL_MS);
    expect(c.told).toEqual([]);
    expect(c.deps.record.lines.length).toBe(lines);
  });

  test("a subscription to what the path gate refuses is refused as the read is", async () => {
    const c = connection();
    await expect(c.subs.subscribe("rta://fs/read/..%2F..%2Fetc%2Fpasswd", claude)).rejects.toThrow();
    expect(c.subs.size).toBe(0);
  });
});

describe("a read with nothing to watch", () => {
  test("is read again no more often than every 5 s", async () => {
    const c = connection();
    let reads = 0;
    const watcher: Watcher = {
      every: POLL_MS,
      moved: () => true,
      read: async () => `answer ${++reads}`,
      close() {},
    };
    c.subs.use(async () => ({ watcher, first: "answer 0" }));
    await c.subs.subscribe("rta://sys/info", claude);
    await c.look(1000);
    await c.look(1000);
    expect(reads).toBe(0);
    await c.look(3000);
    expect(reads).toBe(1);
    expect(c.told).toEqual(["rta://sys/info"]);
  });
});

describe("the limit", () => {
  test(`${MAX_SUBSCRIPTIONS} a connection; the next is refused with rta's code, one held again is not new`, async () => {
    const c = connection();
    const still: Watcher = { every: 250, moved: () => false, read: async () => "", close() {} };
    c.subs.use(async () => ({ watcher: still, first: "" }));
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await c.subs.subscribe(`rta://x/${i}`, claude);
    await c.subs.subscribe("rta://x/0", claude);
    const refused = await c.subs.subscribe("rta://x/64", claude).catch((e: ProtocolError) => e);
    expect((refused as ProtocolError).message).toContain("at most 64 subscriptions");
    expect((refused as ProtocolError).data).toEqual({ code: "core.mcp.subscriptions.full", hint: expect.any(String) });
    c.subs.unsubscribe("rta://x/3");
    await c.subs.subscribe("rta://x/64", claude);
    expect(c.subs.size).toBe(MAX_SUBSCRIPTIONS);
  });
});

describe("a shared store's subscriptions (a session's, kept by the session)", () => {
  /** A Watch whose watchers say what was asked of them: a session's subscription on a shared store. */
  function sharedConnection() {
    const asked: string[] = [];
    const sessions: (string | undefined)[] = [];
    const watcher = (uri: string): Watcher => ({
      every: Number.POSITIVE_INFINITY,
      moved: () => false,
      read: async () => undefined,
      close: () => asked.push(`close ${uri}`),
      again: async () => {
        asked.push(`again ${uri}`);
      },
    });
    const subs = new Subscriptions(Date.now, "session-1");
    subs.use(async (uri, _origin, _signal, session) => {
      sessions.push(session);
      return { watcher: watcher(uri), first: "{}" };
    });
    open.push(subs);
    return { subs, asked, sessions, watcher };
  }

  test("the Watch is told the session; an unsubscribe lets go here, as the connection closing does (its row goes by its id, in Leases.unsubscribed)", async () => {
    const c = sharedConnection();
    await c.subs.subscribe("rta://a", claude);
    await c.subs.subscribe("rta://b", claude);
    expect(c.sessions).toEqual(["session-1", "session-1"]);
    c.subs.unsubscribe("rta://a");
    expect(c.asked).toEqual(["close rta://a"]);
    c.subs.close();
    expect(c.asked).toEqual(["close rta://a", "close rta://b"]);
  });

  test("subscribing again to a URI held records it again; one taken back from another replica is held unread", async () => {
    const c = sharedConnection();
    await c.subs.subscribe("rta://a", claude);
    await c.subs.subscribe("rta://a", claude);
    expect(c.asked).toEqual(["again rta://a"]);
    c.subs.adopt("rta://b", c.watcher("rta://b"));
    c.subs.adopt("rta://a", c.watcher("rta://a-copy"));
    expect(c.asked).toEqual(["again rta://a", "close rta://a-copy"]);
    expect([c.subs.size, c.subs.has("rta://b")]).toEqual([2, true]);
    expect(c.sessions).toEqual(["session-1"]);
    c.subs.unsubscribe("rta://b");
    expect(c.asked).toEqual(["again rta://a", "close rta://a-copy", "close rta://b"]);
    expect(c.subs.has("rta://b")).toBe(false);
  });
});
