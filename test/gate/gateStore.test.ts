import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { GateStore, type GrantQuery, type NewGrant } from "../../src/gate/gateStore.ts";
import { tempDir } from "../support/fixtures.ts";

const T0 = 1_800_000_000_000;
const store = () => new GateStore(join(tempDir(), "data", "gate.db"));
const grant = (over: Partial<NewGrant> = {}): NewGrant => ({
  target: "note.rm",
  record: null,
  agent: "claude",
  connection: null,
  profile: null,
  host: null,
  args_digest: null,
  max_uses: null,
  issued_at: T0,
  expires_at: T0 + 300_000,
  issued_by: "ops",
  build: "rta 0.1.0",
  digest: null,
  ...over,
});
const query = (over: Partial<GrantQuery> = {}): GrantQuery => ({
  targets: ["note.rm", "note"],
  agent: "claude",
  record: "n1",
  connection: null,
  profile: null,
  host: null,
  hostRequired: false,
  args_digest: "d1",
  now: T0 + 1000,
  ...over,
});

describe("spending", () => {
  test("a live grant for the capability or its area spends one use at a time, up to its max", () => {
    const s = store();
    const g = s.issue(grant({ max_uses: 2 }));
    expect(s.spend(query())?.id).toBe(g.id);
    expect(s.spend(query())?.uses).toBe(2);
    expect(s.spend(query())).toBeUndefined();
    s.issue(grant({ target: "note" }));
    expect(s.spend(query())?.target).toBe("note");
  });

  test("another agent, another capability, an expired or revoked grant does not match", () => {
    const s = store();
    const g = s.issue(grant());
    expect(s.spend(query({ agent: "cursor" }))).toBeUndefined();
    expect(s.spend(query({ targets: ["note.add", "note"] }))).toBeUndefined();
    expect(s.spend(query({ now: T0 + 300_000 }))).toBeUndefined();
    s.revoke({ id: g.id }, T0);
    expect(s.spend(query())).toBeUndefined();
    expect(s.lastMatching(query())?.revoked_at).toBe(T0);
  });

  test("a grant narrowed to a record, host, connection, profile or exact arguments matches only that", () => {
    const s = store();
    s.issue(grant({ record: "n2" }));
    s.issue(grant({ host: "example.test" }));
    s.issue(grant({ connection: "prod" }));
    s.issue(grant({ profile: "ops" }));
    s.issue(grant({ args_digest: "d9" }));
    expect(s.spend(query())).toBeUndefined();
    expect(s.spend(query({ record: "n2" }))?.record).toBe("n2");
    expect(s.spend(query({ host: "example.test" }))?.host).toBe("example.test");
    expect(s.spend(query({ connection: "prod" }))?.connection).toBe("prod");
    expect(s.spend(query({ profile: "ops" }))?.profile).toBe("ops");
    expect(s.spend(query({ args_digest: "d9" }))?.args_digest).toBe("d9");
  });

  test("the narrowest grant that matches is spent, the broadest last", () => {
    const s = store();
    const broad = s.issue(grant({ target: "note", expires_at: T0 + 60_000 }));
    const cap = s.issue(grant({ expires_at: T0 + 120_000 }));
    const conn = s.issue(grant({ connection: "prod" }));
    const rec = s.issue(grant({ record: "n1" }));
    const exact = s.issue(grant({ args_digest: "d1" }));
    const host = s.issue(grant({ host: "127.0.0.1", max_uses: 1 }));
    const q = query({ host: "127.0.0.1", connection: "prod" });
    expect([1, 2, 3, 4, 5, 6].map(() => s.spend(q)?.id)).toEqual([
      host.id,
      exact.id,
      exact.id,
      exact.id,
      exact.id,
      exact.id,
    ]);
    s.revoke({ id: exact.id }, T0);
    expect(s.spend(q)?.id).toBe(rec.id);
    s.revoke({ id: rec.id }, T0);
    expect(s.spend(q)?.id).toBe(conn.id);
    s.revoke({ id: conn.id }, T0);
    // a grant on the capability before one on its area, though the area's ends sooner
    expect(s.spend(q)?.id).toBe(cap.id);
    s.revoke({ id: cap.id }, T0);
    expect(s.spend(q)?.id).toBe(broad.id);
    expect(s.get(broad.id)?.uses).toBe(1);
  });

  test("an address only a grant naming it may reach spends no hostless grant", () => {
    const s = store();
    const hostless = s.issue(grant());
    const q = query({ host: "127.0.0.1", hostRequired: true });
    expect(s.spend(q)).toBeUndefined();
    expect(s.lastMatching(q)).toBeUndefined();
    const named = s.issue(grant({ host: "127.0.0.1" }));
    expect(s.spend(q)?.id).toBe(named.id);
    expect(s.get(hostless.id)?.uses).toBe(0);
  });

  test("a use given back can be spent again", () => {
    const s = store();
    const g = s.issue(grant({ max_uses: 1 }));
    expect(s.spend(query())?.id).toBe(g.id);
    s.giveBack(g.id);
    expect(s.spend(query())?.id).toBe(g.id);
    expect(s.get(g.id)?.uses).toBe(1);
  });

  test("revoke by agent or all says how many were live", () => {
    const s = store();
    s.issue(grant());
    s.issue(grant({ agent: "cursor" }));
    s.issue(grant({ agent: "cursor" }));
    expect(s.revoke({ agent: "cursor" }, T0)).toBe(2);
    expect(s.revoke({ all: true }, T0)).toBe(1);
    expect(s.revoke({ all: true }, T0)).toBe(0);
  });

  test("two stores on one file see each other's spends", () => {
    const dir = tempDir();
    const a = new GateStore(join(dir, "gate.db"));
    const b = new GateStore(join(dir, "gate.db"));
    a.issue(grant({ max_uses: 1 }));
    expect(b.spend(query())).toBeDefined();
    expect(a.spend(query())).toBeUndefined();
  });
});

describe("locks", () => {
  test("a lock covers its agent and target, until lifted or expired", () => {
    const s = store();
    const everyone = s.lock({ agent: null, target: "note", issued_at: T0, expires_at: null, issued_by: "ops" });
    expect(s.lockFor("claude", ["note.list", "note"], T0)?.id).toBe(everyone.id);
    expect(s.lockFor("claude", ["proc.list", "proc"], T0)).toBeUndefined();
    const claude = s.lock({ agent: "claude", target: null, issued_at: T0, expires_at: T0 + 1000, issued_by: "ops" });
    expect(s.lockFor("claude", ["proc.list", "proc"], T0)?.id).toBe(claude.id);
    expect(s.lockFor("cursor", ["proc.list", "proc"], T0)).toBeUndefined();
    expect(s.lockFor("claude", ["proc.list", "proc"], T0 + 1000)).toBeUndefined();
    expect(s.lift({ id: everyone.id }, T0)).toBe(1);
    expect(s.lockFor("cursor", ["note.list", "note"], T0)).toBeUndefined();
    expect(s.locks().map((l) => l.lifted_at !== null)).toEqual([true, false]);
  });

  test("a lock or a lift from another connection is seen by the next check, whatever this one wrote", () => {
    const file = join(tempDir(), "data", "gate.db");
    const server = new GateStore(file);
    const person = new GateStore(file);
    const targets = ["sys.info", "sys"];
    expect(server.lockFor("claude", targets, T0)).toBeUndefined();
    const lock = person.lock({ agent: "Claude", target: "sys", issued_at: T0, expires_at: null, issued_by: "ops" });
    expect(server.lockFor("claude", targets, T0)?.id).toBe(lock.id);
    // the server's own writes (a record line's checkpoint, a grant's use) do not hide the person's next one
    server.appendRecordLine(
      (last) => ({ n: last.n + 1, mac: "m", size: last.size + 1 }),
      () => {},
    );
    expect(person.lift({ id: lock.id }, T0)).toBe(1);
    expect(server.lockFor("claude", targets, T0)).toBeUndefined();
    const again = person.lock({ agent: null, target: null, issued_at: T0, expires_at: null, issued_by: "ops" });
    server.issue(grant());
    expect(server.spend(query())).toBeDefined();
    expect(server.lockFor("cursor", targets, T0)?.id).toBe(again.id);
    server.close();
    person.close();
  });

  test("an agent's lock matches its name folded as ASCII only, as SQLite's NOCASE folds it", () => {
    const s = store();
    const lock = s.lock({ agent: "CLAUDE-Desktop", target: null, issued_at: T0, expires_at: null, issued_by: "ops" });
    expect(s.lockFor("claude-desktop", ["sys.info", "sys"], T0)?.id).toBe(lock.id);
    s.lock({ agent: "\u00c9VE", target: null, issued_at: T0 + 1, expires_at: null, issued_by: "ops" });
    expect(s.lockFor("\u00e9ve", ["sys.info", "sys"], T0)).toBeUndefined();
    expect(s.lockFor("\u00c9ve", ["sys.info", "sys"], T0)).toBeDefined();
  });
});
