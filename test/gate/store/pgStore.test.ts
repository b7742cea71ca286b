/**
 * The gate's store in PostgreSQL, against a real server (test/support/pg.ts): the migrations under their lock, a
 * newer schema refused, the password never said, the last use never spent twice across two replicas' pools, a lock
 * through one seen by the other's next call, and the same matching as gate.db.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { NewGrant } from "../../../src/gate/gateStore.ts";
import { MIGRATIONS } from "../../../src/gate/store/pgSchema.ts";
import { isPostgresUrl, PgGateStore } from "../../../src/gate/store/pgStore.ts";
import { pgServer } from "../../support/pg.ts";

const pg = await pgServer();
const NOW = 1_800_000_000_000;
const opened: PgGateStore[] = [];

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function open(url: string, max?: number): Promise<PgGateStore> {
  const s = await PgGateStore.open(url, max ? { max } : {});
  opened.push(s);
  return s;
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
  const err = await PgGateStore.open(url).then(
    () => undefined,
    (e: unknown) => e as { code: string; message: string; hint?: string },
  );
  expect(err?.code).toBe("core.store.unavailable");
  const said = JSON.stringify(err) + String(err?.message) + String(err?.hint);
  expect(said).toContain("postgres://rta@127.0.0.1:1/nowhere");
  for (const secret of ["Sup3r", "s3cret", "Other9secret"]) expect(said).not.toContain(secret);
});

describe.skipIf(pg === null)("on a PostgreSQL server", () => {
  test("two replicas starting at once run each migration once, and both serve", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = await Promise.all([open(url), open(url)]);
    expect(a.label).toBe(url);
    await b.issue(grant({ target: "fs.read" }));
    expect((await a.list()).length).toBe(1);
    const sql = new SQL(url, { max: 1 });
    const rows = await sql.unsafe("SELECT version FROM rta_schema ORDER BY version");
    await sql.close();
    expect(rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  test("a replica against a newer schema refuses to serve, saying which versions and what to do", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    await open(url);
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe(`INSERT INTO rta_schema (version, applied_at) VALUES (${MIGRATIONS.length + 1}, now())`);
    await sql.close();
    const err = await PgGateStore.open(url).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string; hint: string },
    );
    expect(err?.code).toBe("core.store.unavailable");
    expect(err?.message).toContain(`has schema version ${MIGRATIONS.length + 1}, newer than this rta knows`);
    expect(err?.hint).toContain("upgrade rta");
  });

  test("200 spends at once through two replicas' pools of a grant with 20 uses: exactly 20 are spent", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = await Promise.all([open(url, 20), open(url, 20)]);
    const g = await a.issue(grant({ target: "fs.read", max_uses: 20 }));
    const spends = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).spend(query()));
    const spent = (await Promise.all(spends)).filter((x) => x !== undefined);
    expect(spent.length).toBe(20);
    expect(new Set(spent.map((x) => x?.uses))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
    expect((await b.get(g.id))?.uses).toBe(20);
    expect((await a.lastMatching(query()))?.id).toBe(g.id);
  });

  test("a lock set through one replica stops the other's next call; lifted, it stops nothing", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = await Promise.all([open(url), open(url)]);
    expect(await b.lockFor("claude", ["fs.read", "fs"], NOW)).toBeUndefined();
    const l = await a.lock({ agent: "Claude", target: "fs", issued_at: NOW, expires_at: null, issued_by: "test" });
    expect((await b.lockFor("claude", ["fs.read", "fs"], NOW))?.id).toBe(l.id);
    expect(await b.lockFor("codex", ["fs.read", "fs"], NOW)).toBeUndefined();
    expect(await a.lift({ agent: "CLAUDE" }, NOW)).toBe(1);
    expect(await b.lockFor("claude", ["fs.read", "fs"], NOW)).toBeUndefined();
    expect((await a.locks())[0]?.lifted_at).toBe(NOW);
  });

  test("the narrowest grant is spent first; a revoke through one replica is seen by the other", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = await Promise.all([open(url), open(url)]);
    const broad = await a.issue(grant({ target: "fs" }));
    const exact = await a.issue(grant({ target: "fs.read", args_digest: "d0", max_uses: 1 }), '{"path":"a"}');
    expect((await b.spend(query()))?.id).toBe(exact.id);
    expect((await b.spend(query()))?.id).toBe(broad.id);
    expect(await a.grantArgs()).toEqual(new Map([[exact.id, '{"path":"a"}']]));
    expect(await a.revoke({ agent: "CLAUDE" }, NOW)).toBe(2);
    expect(await b.spend(query())).toBeUndefined();
    expect(await b.liveGrants("claude", NOW)).toEqual([]);
    const plugin = await a.issue(grant({ target: "fs.read", digest: "old" }));
    expect((await b.staleMatching(query({ digest: "new" })))?.id).toBe(plugin.id);
    expect(await b.spend(query({ digest: "new" }))).toBeUndefined();
  });

  test("tokens and rate buckets are shared: a revoked token is refused on the other replica, a bucket spent on both", async () => {
    const url = await (pg?.freshDb() as Promise<string>);
    const [a, b] = await Promise.all([open(url), open(url)]);
    const t = await a.addToken("claude", "h1", NOW, null, "test");
    expect((await b.tokenByHash("h1", NOW))?.id).toBe(t.id);
    expect(await b.revokeTokens({ id: t.id }, NOW)).toBe(1);
    expect(await a.tokenByHash("h1", NOW)).toBeUndefined();
    expect((await a.tokens())[0]?.revoked_at).toBe(NOW);
    expect(await a.takeToken("claude", "fs.read", 2, NOW)).toEqual({ taken: true });
    expect(await b.takeToken("Claude", "fs.read", 2, NOW)).toEqual({ taken: true });
    expect(await a.takeToken("claude", "fs.read", 2, NOW)).toEqual({ taken: false, waitMs: 30_000 });
    expect(await b.takeToken("claude", "fs.read", 2, NOW + 30_000)).toEqual({ taken: true });
  });
});
