/**
 * The gate's store in PostgreSQL, against a real server (test/support/pg.ts): the migrations under their lock, a
 * newer schema refused, the password never said, the last use never spent twice across two replicas' pools, a lock
 * through one seen by the other's next call, and the same matching as gate.db.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { NewGrant } from "../../../src/gate/gateStore.ts";
import { SyncPg } from "../../../src/gate/store/pgBridge.ts";
import { MIGRATIONS } from "../../../src/gate/store/pgSchema.ts";
import { isPostgresUrl, PgGateStore } from "../../../src/gate/store/pgStore.ts";
import { pgServer } from "../../support/pg.ts";

const pg = await pgServer();
const NOW = 1_800_000_000_000;
const opened: PgGateStore[] = [];

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

function open(url: string): PgGateStore {
  const s = new PgGateStore(url);
  opened.push(s);
  return s;
}

/** What opening the store at `url` refused with. */
function refusal(url: string): { code: string; message: string; hint?: string } | undefined {
  try {
    open(url);
    return undefined;
  } catch (e) {
    return e as { code: string; message: string; hint?: string };
  }
}

function grant(over: Partial<NewGrant> & { target: string }): NewGrant {
  return {
    record: null,
    agent: "claude",
    connection: null,
    profile: null,
    host: null,
    args_digest: null,
    max_uses: null,
    issued_at: NOW,
    expires_at: NOW + 600_000,
    issued_by: "test",
    build: "rta test",
    digest: null,
    ...over,
  };
}

const query = (over: Partial<Parameters<PgGateStore["spend"]>[0]> = {}) => ({
  targets: ["fs.read", "fs"],
  agent: "claude",
  record: null,
  connection: null,
  profile: null,
  host: null,
  hostRequired: false,
  args_digest: "d0",
  digest: null,
  now: NOW + 1,
  ...over,
});

test("a postgres:// or postgresql:// store is PostgreSQL; a path is not", () => {
  expect(isPostgresUrl("postgres://u@h/db")).toBe(true);
  expect(isPostgresUrl("POSTGRESQL://u@h/db")).toBe(true);
  expect(isPostgresUrl("/var/lib/rta/gate.db")).toBe(false);
});

test("a store that cannot be reached is core.store.unavailable, and says no part of the password", async () => {
  const url = "postgres://rta:Sup3r%2Fs3cret@127.0.0.1:1/nowhere?sslmode=disable&password=Other9secret";
  const err = refusal(url);
  expect(err?.code).toBe("core.store.unavailable");
  const said = JSON.stringify(err) + String(err?.message) + String(err?.hint);
  expect(said).toContain("postgres://rta@127.0.0.1:1/nowhere");
  for (const secret of ["Sup3r", "s3cret", "Other9secret"]) expect(said).not.toContain(secret);
});

test("a password with a / that was not percent-encoded is refused before any connection, showing no part of it", () => {
  for (const url of [
    "postgres://rta:1234/Sup3rsecret@127.0.0.1:1/nowhere",
    "postgres://rta:/Sup3rsecret@127.0.0.1:1/nowhere",
    "postgres://rta@127.0.0.1:1/nowhere?password=x@Sup3rsecret",
  ]) {
    const err = refusal(url);
    expect(err?.code).toBe("core.store.unavailable");
    const said = JSON.stringify(err) + String(err?.message) + String(err?.hint);
    for (const secret of ["Sup3rsecret", "1234"]) expect(said).not.toContain(secret);
    expect(said).toContain("does not parse");
    expect(err?.hint).toContain("percent-encode");
  }
});

describe.skipIf(pg === null)("on a PostgreSQL server", () => {
  test("the first replica runs each migration once; the next finds them run, and both serve", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = [open(url), open(url)];
    expect([a.migrated, b.migrated]).toEqual([MIGRATIONS.length, 0]);
    expect(a.label).toBe(url);
    b.issue(grant({ target: "fs.read" }));
    expect(a.list().length).toBe(1);
    const sql = new SQL(url, { max: 1 });
    const rows = await sql.unsafe("SELECT version FROM rta_schema ORDER BY version");
    await sql.close();
    expect(rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  test("a replica against a newer schema refuses to serve, saying which versions and what to do", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    open(url);
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe(`INSERT INTO rta_schema (version, applied_at) VALUES (${MIGRATIONS.length + 1}, now())`);
    await sql.close();
    const err = refusal(url);
    expect(err?.code).toBe("core.store.unavailable");
    expect(err?.message).toContain(`has schema version ${MIGRATIONS.length + 1}, newer than this rta knows`);
    expect(err?.hint).toContain("upgrade rta");
  });

  test("200 spends through two replicas' stores of a grant with 20 uses: exactly 20 are spent", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = [open(url), open(url)];
    const g = a.issue(grant({ target: "fs.read", max_uses: 20 }));
    const spent = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).spend(query())).filter(
      (x) => x !== undefined,
    );
    expect(spent.length).toBe(20);
    expect(new Set(spent.map((x) => x?.uses))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
    expect(b.get(g.id)?.uses).toBe(20);
    expect(a.lastMatching(query())?.id).toBe(g.id);
  });

  test("a lock set through one replica stops the other's next call; lifted, it stops nothing", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = [open(url), open(url)];
    expect(b.lockFor("claude", ["fs.read", "fs"], NOW)).toBeUndefined();
    const l = a.lock({ agent: "Claude", target: "fs", issued_at: NOW, expires_at: null, issued_by: "test" });
    expect(b.lockFor("claude", ["fs.read", "fs"], NOW)?.id).toBe(l.id);
    expect(b.lockFor("codex", ["fs.read", "fs"], NOW)).toBeUndefined();
    expect(a.lift({ agent: "CLAUDE" }, NOW)).toBe(1);
    expect(b.lockFor("claude", ["fs.read", "fs"], NOW)).toBeUndefined();
    expect(a.locks()[0]?.lifted_at).toBe(NOW);
  });

  test("the narrowest grant is spent first; a revoke through one replica is seen by the other", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = [open(url), open(url)];
    const broad = a.issue(grant({ target: "fs" }));
    const exact = a.issue(grant({ target: "fs.read", args_digest: "d0", max_uses: 1 }), '{"path":"a"}');
    expect(b.spend(query())?.id).toBe(exact.id);
    expect(b.spend(query())?.id).toBe(broad.id);
    expect(a.grantArgs()).toEqual(new Map([[exact.id, '{"path":"a"}']]));
    expect(a.revoke({ agent: "CLAUDE" }, NOW)).toBe(2);
    expect(b.spend(query())).toBeUndefined();
    expect(b.liveGrants("claude", NOW)).toEqual([]);
    const plugin = a.issue(grant({ target: "fs.read", digest: "old" }));
    expect(b.staleMatching(query({ digest: "new" }))?.id).toBe(plugin.id);
    expect(b.spend(query({ digest: "new" }))).toBeUndefined();
  });

  test("tokens and rate buckets are shared: a revoked token is refused on the other replica, a bucket spent on both", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = [open(url), open(url)];
    const t = a.addToken("claude", "h1", NOW, null, "test");
    expect(b.tokenByHash("h1", NOW)?.id).toBe(t.id);
    expect(b.revokeTokens({ id: t.id }, NOW)).toBe(1);
    expect(a.tokenByHash("h1", NOW)).toBeUndefined();
    expect(a.tokens()[0]?.revoked_at).toBe(NOW);
    expect(a.takeToken("claude", "fs.read", 2, NOW)).toEqual({ taken: true });
    expect(b.takeToken("Claude", "fs.read", 2, NOW)).toEqual({ taken: true });
    expect(a.takeToken("claude", "fs.read", 2, NOW)).toEqual({ taken: false, waitMs: 30_000 });
    expect(b.takeToken("claude", "fs.read", 2, NOW + 30_000)).toEqual({ taken: true });
  });

  test("the bridge's statements are prepared once and planned generic from their first run, on every connection", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    open(url).issue(grant({ target: "fs.read", max_uses: 100 }));
    const bridge = new SyncPg(url);
    try {
      const spend = "UPDATE grants SET uses = uses + 1 WHERE agent = $1 AND target = $2 RETURNING uses";
      const plans = () =>
        bridge.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1", [spend]);
      for (let i = 1; i <= 8; i++) expect(bridge.query(spend, ["claude", "fs.read"])).toEqual([{ uses: String(i) }]);
      expect(plans()).toEqual([{ generic_plans: "8", custom_plans: "0" }]);
      expect(bridge.query("SELECT application_name AS a FROM pg_stat_activity WHERE pid = pg_backend_pid()")).toEqual([
        { a: "rta" },
      ]);
      // the connection is ended by the server: the client connects again, and the next statements plan generic too
      const [{ pid }] = bridge.query<{ pid: number }>("SELECT pg_backend_pid() AS pid") as [{ pid: number }];
      const admin = new SQL(url, { max: 1 });
      await admin.unsafe(`SELECT pg_terminate_backend(${Number(pid)})`);
      await admin.close();
      let again: number | undefined;
      for (let tries = 0; again === undefined && tries < 3; tries++)
        try {
          again = Number(bridge.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")[0]?.pid);
        } catch {
          // the statement that found the connection gone
        }
      expect(again).not.toBe(pid);
      for (let i = 9; i <= 16; i++) expect(bridge.query(spend, ["claude", "fs.read"])).toEqual([{ uses: String(i) }]);
      expect(plans()).toEqual([{ generic_plans: "8", custom_plans: "0" }]);
    } finally {
      bridge.close();
    }
  });

  test("an answer larger than the bridge's buffer comes whole", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const a = open(url);
    // a character of two bytes in each, so the answer's size in bytes is not its length
    const args = JSON.stringify({ path: `é${"x".repeat(1000)}` });
    for (let i = 0; i < 1200; i++) a.issue(grant({ target: "fs.read", args_digest: `d${i}` }), args);
    const texts = a.grantArgs();
    expect(texts.size).toBe(1200);
    expect([...texts.values()].every((t) => t === args)).toBe(true);
    expect(a.list().length).toBe(1200);
  });
});
