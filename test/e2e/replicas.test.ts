/**
 * End to end: two `rta mcp serve --http` replicas on one PostgreSQL store (test/support/pg.ts), each with its own
 * data dir, as a team runs them behind a load balancer: started together they run the migrations once, a grant's
 * uses are spent across both and never past its count, and a lock set while both run stops the next call on each.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import { MIGRATIONS } from "../../src/gate/store/pgSchema.ts";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { resultJson } from "../support/mcpClient.ts";
import { pgServer } from "../support/pg.ts";
import { rta } from "../support/rta.ts";

const pg = await pgServer();

describe.skipIf(pg === null)("two replicas on one PostgreSQL store", () => {
  let store = "";
  let root = "";
  let replicas: RunningHttp[] = [];
  let token = "";
  const clients: Client[] = [];

  async function client(srv: RunningHttp): Promise<Client> {
    const c = new Client(
      { name: "replicas-e2e", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(c);
    return c;
  }

  /** A person's verb against the shared store, from a third data dir: the store, not a replica, holds its rows. */
  const person = (args: string[]) =>
    rta([...args, "--store", store], { env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() } });

  beforeAll(async () => {
    store = await (pg?.freshDb() as Promise<string>);
    root = tempDir();
    mkdirSync(join(root, "out"));
    writeFileSync(join(root, "seen.txt"), "seen\n");
    replicas = await Promise.all([0, 1].map(() => startHttp(["--root", root, "--store", store])));
    token = JSON.parse((await person(["mcp", "token", "new", "--agent", "claude", "--json"])).stdout).token;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const r of replicas) await r.stop();
  });

  test("started together, the replicas ran each migration once, and both serve", async () => {
    const sql = new SQL(store, { max: 1 });
    const rows = await sql.unsafe("SELECT version FROM rta_schema ORDER BY version");
    await sql.close();
    expect(rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const r of replicas) expect(r.stderr()).not.toContain("error");
  });

  test("a grant of 20 uses and 200 calls at once split between the replicas: exactly 20 succeed", async () => {
    const issued = await person([
      "grant",
      "allow",
      "fs.write",
      "--agent",
      "claude",
      "--ttl",
      "10m",
      "--max-uses",
      "20",
    ]);
    expect(issued.code).toBe(0);
    const [a, b] = await Promise.all(replicas.map(client));
    // All 200 are sent at once. An agent may have 32 requests in flight on each server and each call waits for its
    // record line's commit, so some are told 429 (try again) before the gate sees them: they spend nothing.
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        (i % 2 === 0 ? a : b)?.callTool({ name: "fs_write", arguments: { path: `out/${i}.txt`, content: "x" } }).then(
          (r) => (r.isError ? (resultJson(r) as { code: string }).code : "ok"),
          (err: Error) => (/requests in flight/.test(err.message) ? "429" : err.message),
        ),
      ),
    );
    const other = outcomes.filter((o) => o !== "ok" && o !== "core.grant.required" && o !== "429");
    expect(other).toEqual([]);
    const count = (what: string) => outcomes.filter((o) => o === what).length;
    expect(count("ok")).toBe(20);
    expect(count("core.grant.required")).toBeGreaterThan(0);
    const listed = JSON.parse((await person(["grant", "list", "--json"])).stdout);
    expect(listed.grants.map((g: { uses: number; state: string }) => [g.uses, g.state])).toEqual([[20, "spent"]]);
  });

  test("a lock set while both run stops the next call on each; lifted, both serve again", async () => {
    const [a, b] = await Promise.all(replicas.map(client));
    const read = (c: Client | undefined) =>
      c?.callTool({ name: "fs_read", arguments: { path: "seen.txt" } }).then((r) => (r.isError ? resultJson(r) : "ok"));
    expect([await read(a), await read(b)]).toEqual(["ok", "ok"]);
    expect((await person(["lock", "--agent", "claude"])).code).toBe(0);
    for (const refused of [await read(a), await read(b)])
      expect((refused as { code: string }).code).toBe("core.lock.locked");
    expect((await person(["lock", "lift", "--agent", "claude"])).code).toBe(0);
    expect([await read(a), await read(b)]).toEqual(["ok", "ok"]);
  });

  test("a replica against a newer schema refuses to serve and says why; no message names the password", async () => {
    const newer = await (pg?.freshDb() as Promise<string>);
    expect((await rta(["grant", "list", "--store", newer])).code).toBe(0);
    const sql = new SQL(newer, { max: 1 });
    await sql.unsafe(`INSERT INTO rta_schema (version, applied_at) VALUES (${MIGRATIONS.length + 1}, now())`);
    await sql.close();
    const refused = await rta(["mcp", "serve", "--http", "127.0.0.1:0", "--store", newer]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`has schema version ${MIGRATIONS.length + 1}, newer than this rta knows`);
    expect(refused.stderr).toContain("rta: hint: upgrade rta on this replica");
    const secret = "postgres://rta:Pa55-w0rd-xyz@127.0.0.1:1/none";
    for (const args of [["mcp", "serve", "--http", "127.0.0.1:0"], ["grant", "list"], ["doctor"]]) {
      const ran = await rta(args, { env: { RTA_STORE: secret } });
      expect(ran.code).not.toBe(0);
      expect(ran.stderr + ran.stdout).toContain("postgres://rta@127.0.0.1:1/none");
      expect(ran.stderr + ran.stdout).not.toContain("Pa55-w0rd-xyz");
    }
  });
});
