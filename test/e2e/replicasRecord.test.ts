/**
 * End to end: the record of replicas on one PostgreSQL store (test/support/pg.ts) is in the store, one chain a
 * server session, read back by `rta agent log --store …`: two replicas writing at once verify, a replica killed in
 * the middle of a call leaves that call as a `run` line without its outcome and a record that verifies, and rows
 * changed in SQL (a line altered, removed or moved, a session's tail or a whole session cut out) are named by
 * --verify for what was done.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { RTA, rta } from "../support/rta.ts";

const pg = await pgServer();

interface Line {
  kind?: string;
  session: string;
  seq: number;
  capability: string;
  outcome: string;
}

describe.skipIf(pg === null)("the record of replicas on one PostgreSQL store", () => {
  let store = "";
  let root = "";
  const clients: Client[] = [];
  const running: RunningHttp[] = [];

  async function client(srv: RunningHttp, token: string): Promise<Client> {
    const c = new Client({ name: "record-e2e", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(c);
    return c;
  }

  /** A person's verb against a store, from a data dir of its own: the store, not a replica, holds the record. */
  const person = (args: string[], at = store) =>
    rta([...args, "--store", at], { env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() } });

  const replica = async () => {
    const r = await startHttp(["--root", root, "--store", store]);
    running.push(r);
    return r;
  };

  /** A copy of the store as it is now, to tamper with. */
  async function copyOf(from: string): Promise<string> {
    const admin = new SQL(pg?.url as string, { max: 1 });
    const name = `${new URL(from).pathname.slice(1)}_c${Math.random().toString(36).slice(2, 8)}`;
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${new URL(from).pathname.slice(1)}`);
    await admin.close();
    const u = new URL(from);
    u.pathname = `/${name}`;
    return u.toString();
  }

  async function tampered(statements: string[]): Promise<{ code: number; stdout: string }> {
    const copy = await copyOf(store);
    const sql = new SQL(copy, { max: 1 });
    for (const s of statements) await sql.unsafe(s);
    await sql.close();
    return person(["agent", "log", "--verify"], copy);
  }

  const lines = async (at = store): Promise<Line[]> => {
    const said = await person(["agent", "log", "--json"], at);
    expect(said.code).toBe(0);
    return JSON.parse(said.stdout);
  };

  beforeAll(async () => {
    store = await (pg?.freshDb() as Promise<string>);
    root = tempDir();
    mkdirSync(join(root, "out"));
    const [a, b] = await Promise.all([replica(), replica()]);
    const token = JSON.parse((await person(["mcp", "token", "new", "--agent", "claude", "--json"])).stdout).token;
    expect((await person(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"])).code).toBe(0);
    const [ca, cb] = await Promise.all([client(a as RunningHttp, token), client(b as RunningHttp, token)]);
    // 60 writes and 60 reads, 40 at a time split between the two replicas (an agent may have 32 in flight on
    // each): each write is a run line and an outcome line, each read its outcome alone
    for (let round = 0; round < 3; round++)
      await Promise.all(
        Array.from({ length: 40 }, (_, j) => {
          const i = round * 40 + j;
          return (i % 2 === 0 ? ca : cb)?.callTool(
            i % 4 < 2
              ? { name: "fs_write", arguments: { path: `out/${i}.txt`, content: "x" } }
              : { name: "fs_read", arguments: { path: `out/${i - 2}.txt` } },
          );
        }),
      );
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    for (const r of running.splice(0)) await r.stop();
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const r of running) await r.stop();
  });

  test("two replicas written at once: every call is on the store's record, and --verify accepts it", async () => {
    const verified = await person(["agent", "log", "--verify"]);
    expect(verified.stdout).toMatch(/^record verified: 184 lines in 2 sessions \(postgres:\/\/rta@127\.0\.0\.1:\d+\//);
    expect(verified.code).toBe(0);
    const all = await lines();
    expect(all.length).toBe(120);
    expect(all.filter((l) => l.capability === "fs_write" && l.outcome === "ok").length).toBe(60);
    expect(new Set(all.map((l) => l.session)).size).toBe(2);
    const json = JSON.parse((await person(["agent", "log", "--verify", "--json"])).stdout);
    expect(json).toMatchObject({ sessions: 2, lines: 184, problems: [], open: [] });
    expect(json.store).toMatch(/^postgres:\/\/rta@127\.0\.0\.1:\d+\//);
    const overview = JSON.parse((await person(["agent", "overview", "--json"])).stdout);
    expect(overview).toMatchObject({ sessions: 2, agents: ["claude"], calls: 120, grants_spent: 60 });
    const piped = await person(["agent", "log"]);
    expect(piped.stdout.trim().split("\n").length).toBe(120);
    expect(piped.stdout.split("\n")[0]?.split("\t")[2]).toBe("claude");
  });

  test("a line altered in SQL is forged", async () => {
    const said = await tampered([
      `UPDATE record_lines SET line = replace(line, '"outcome":"ok"', '"outcome":"core.fs.notfound"')
       WHERE id = (SELECT min(id) FROM record_lines WHERE line LIKE '%"outcome":"ok"%')`,
    ]);
    expect(said.code).toBe(1);
    expect(said.stdout).toMatch(/^forged: line \d+ \(session \w+\) does not match its chain under the key/m);
  });

  test("a line removed in SQL is cut-inside", async () => {
    const said = await tampered([
      "DELETE FROM record_lines WHERE seq = 5 AND session = (SELECT min(session) FROM record_sessions)",
    ]);
    expect(said.code).toBe(1);
    expect(said.stdout).toMatch(/^cut-inside: line \d+ \(session \w+\) lines 5 to 5 of the session are missing$/m);
  });

  test("a session's last lines removed in SQL are cut-tail", async () => {
    const said = await tampered([
      "DELETE FROM record_lines WHERE session = (SELECT min(session) FROM record_sessions) AND seq > 50",
    ]);
    expect(said.code).toBe(1);
    expect(said.stdout).toMatch(/^cut-tail: .*the session's checkpoint is at line \d+, its lines end at 50$/m);
  });

  test("a whole session removed in SQL is cut-session, whichever it was", async () => {
    for (const which of ["min", "max"]) {
      const said = await tampered([
        `DELETE FROM record_lines WHERE session = (SELECT session FROM record_sessions WHERE ord = (SELECT ${which}(ord) FROM record_sessions))`,
        `DELETE FROM record_sessions WHERE ord = (SELECT ${which}(ord) FROM record_sessions)`,
      ]);
      expect(said.code).toBe(1);
      expect(said.stdout).toMatch(/^cut-session: /m);
      expect(said.stdout).not.toMatch(/^forged/m);
    }
  });

  test("a session's lines all removed in SQL, its checkpoint moved back to before its first, is cut-session", async () => {
    const first = "(SELECT session FROM record_sessions WHERE ord = (SELECT min(ord) FROM record_sessions))";
    const said = await tampered([
      `DELETE FROM record_lines WHERE session = ${first}`,
      `UPDATE record_sessions SET last_seq = 0, last_mac = prev_mac WHERE session = ${first}`,
    ]);
    expect(said.stdout).toMatch(/^cut-session: .*the session holds no line, though its row is written with its first/m);
    expect(said.stdout).not.toMatch(/^record verified/m);
    expect(said.code).toBe(1);
  });

  test("two lines swapped in SQL are reordered", async () => {
    const said = await tampered([
      `WITH a AS (SELECT id, line FROM record_lines WHERE seq = 3 AND session = (SELECT min(session) FROM record_sessions)),
            b AS (SELECT id, line FROM record_lines WHERE seq = 4 AND session = (SELECT min(session) FROM record_sessions))
       UPDATE record_lines r SET line = CASE WHEN r.id = a.id THEN b.line ELSE a.line END
       FROM a, b WHERE r.id IN (a.id, b.id)`,
    ]);
    expect(said.code).toBe(1);
    expect(said.stdout).toMatch(
      /^reordered: line \d+ \(session \w+\) holds line 4 of session \w+ in the place of line 3/m,
    );
  });

  test("a session's checkpoint altered in SQL is replaced; lines past it are forged; the key removed is replaced", async () => {
    const first = "(SELECT min(session) FROM record_sessions)";
    let said = await tampered([`UPDATE record_sessions SET last_mac = md5('x') WHERE session = ${first}`]);
    expect(said.stdout).toMatch(/^replaced: .*the session's checkpoint holds another line than its last$/m);
    said = await tampered([`UPDATE record_sessions SET last_seq = last_seq - 1 WHERE session = ${first}`]);
    expect(said.stdout).toMatch(/^forged: .*lines past the session's checkpoint/m);
    said = await tampered(["DELETE FROM record_key"]);
    expect(said.stdout).toMatch(/^replaced: the store holds no record key/m);
    expect(said.code).toBe(1);
  });

  test("a store that cannot take the record refuses the call and gives its use back; --follow sees the calls after", async () => {
    const r = await replica();
    const token = JSON.parse((await person(["mcp", "token", "new", "--agent", "once", "--json"])).stdout).token;
    expect(
      (await person(["grant", "allow", "fs.write", "--agent", "once", "--ttl", "10m", "--max-uses", "2"])).code,
    ).toBe(0);
    const follower = Bun.spawn([RTA, "agent", "log", "--follow", "--json", "--agent", "once", "--store", store], {
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const c = await client(r, token);
      let written = 0;
      const write = async () => {
        const res = await c.callTool({
          name: "fs_write",
          arguments: { path: `out/once-${written++}.txt`, content: "x" },
        });
        return res.isError
          ? (JSON.parse((res.content as { text: string }[])[0]?.text ?? "{}") as { code: string }).code
          : "ok";
      };
      const sql = new SQL(store, { max: 1 });
      // the follower has read what was there before the table goes: it follows from here
      const reader = (follower.stdout as ReadableStream<Uint8Array>).getReader();
      let out = "";
      const followed = async (count: number): Promise<string[]> => {
        while (out.split("\n").filter(Boolean).length < count) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the follower ended: ${await new Response(follower.stderr).text()}`);
          out += new TextDecoder().decode(value);
        }
        return out
          .split("\n")
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as Line).outcome);
      };
      expect(await write()).toBe("ok");
      expect(await followed(1)).toEqual(["ok"]);
      await sql.unsafe("ALTER TABLE record_lines RENAME TO record_lines_away");
      expect(await write()).toBe("core.record.unavailable");
      await sql.unsafe("ALTER TABLE record_lines_away RENAME TO record_lines");
      await sql.close();
      const grants = JSON.parse((await person(["grant", "list", "--json", "--agent", "once"])).stdout).grants;
      expect(grants.map((g: { uses: number }) => g.uses)).toEqual([1]);
      expect(await write()).toBe("ok");
      expect(await write()).toBe("core.grant.required");
      expect(r.stderr()).toContain("rta: the record cannot be written, so agent calls are refused");
      expect(r.stderr().split("rta: the record cannot be written").length).toBe(2);
      // the follower prints each call once it is committed, one JSON object a line
      expect(await followed(3)).toEqual(["ok", "ok", "core.grant.required"]);
    } finally {
      follower.kill("SIGINT");
      expect(await follower.exited).toBe(130);
    }
    await r.stop();
    const verified = await person(["agent", "log", "--verify"]);
    expect(verified.code).toBe(0);
  });

  test("a grant that names no agent finds the agent the store's record has seen, its token revoked", async () => {
    const copy = await copyOf(store);
    const sql = new SQL(copy, { max: 1 });
    await sql.unsafe("UPDATE tokens SET revoked_at = 1");
    // the calls of other agents (another test's) are left out: claude is the one agent the record has seen
    await sql.unsafe("DELETE FROM record_lines WHERE line::jsonb->>'agent' IS DISTINCT FROM 'claude'");
    await sql.close();
    const granted = await person(["grant", "allow", "fs.read", "--ttl", "1m"], copy);
    expect(granted.stderr).toContain("for agent claude, the one agent registered or seen");
    expect(granted.code).toBe(0);
  });

  test("the store's password is in no output of agent log, --verify, --follow or overview", async () => {
    const secret = "postgres://rta:Pa55-w0rd-xyz@127.0.0.1:1/none";
    for (const args of [
      ["agent", "log"],
      ["agent", "log", "--verify"],
      ["agent", "log", "--follow"],
      ["agent", "overview"],
    ]) {
      const ran = await rta(args, { env: { RTA_STORE: secret } });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain("rta: error: the shared store at postgres://rta@127.0.0.1:1/none could not be used");
      expect(ran.stderr + ran.stdout).not.toContain("Pa55-w0rd-xyz");
    }
  });

  test("a replica killed in the middle of a call: the call is a run line without its outcome, and --verify accepts", async () => {
    let arrived: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const target = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        arrived();
        await Bun.sleep(60_000);
        return new Response("late");
      },
    });
    try {
      const r = await replica();
      const token = JSON.parse((await person(["mcp", "token", "new", "--agent", "slow", "--json"])).stdout).token;
      const allow = ["grant", "allow", "http.get", "--agent", "slow", "--host", "127.0.0.1", "--ttl", "10m"];
      expect((await person(allow)).code).toBe(0);
      const c = await client(r, token);
      const call = c
        .callTool({ name: "http_get", arguments: { url: `http://127.0.0.1:${target.port}/slow` } })
        .catch(() => "gone");
      await reached;
      r.proc.kill("SIGKILL");
      await r.proc.exited;
      expect(await call).toBe("gone");
      const said = await person(["agent", "log", "--verify", "--json"]);
      const verdict = JSON.parse(said.stdout);
      expect(verdict.problems).toEqual([]);
      expect(verdict.open.length).toBe(1);
      expect(said.code).toBe(0);
      const raw = new SQL(store, { max: 1 });
      const rows = await raw.unsafe("SELECT line FROM record_lines WHERE session = $1 ORDER BY seq", [verdict.open[0]]);
      await raw.close();
      const killed: Line[] = rows.map((row: { line: string }) => JSON.parse(row.line) as Line);
      expect(killed.map((l) => [l.kind ?? "", l.capability])).toEqual([
        ["start", ""],
        ["run", "http_get"],
      ]);
    } finally {
      target.stop(true);
    }
  });
});
