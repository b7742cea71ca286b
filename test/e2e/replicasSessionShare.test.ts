/**
 * End to end: an agent's share of 2025-11-25 sessions holds across two `rta mcp serve --http` replicas of one
 * PostgreSQL store (test/support/pg.ts). Initializes sent to both at once leave the agent at its share of rows, and
 * a replica whose sessions another replica evicted from the store holds no more than the share of their copies:
 * each copy is a transport and a server in its memory, which the agent, never using it again, would otherwise pile up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { SESSIONS_PER_AGENT } from "../../src/mcp/http/sessions.ts";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { RTA, rta } from "../support/rta.ts";

const pg = await pgServer();

describe.skipIf(pg === null)("an agent's share of sessions across two replicas", () => {
  let store = "";
  let replicas: RunningHttp[] = [];
  const tokens: Record<string, string> = {};
  const dirs = [0, 1].map(() => ({ data: tempDir(), config: tempDir() }));

  /** A bare 2025-11-25 initialize on `srv` with `agent`'s token; its status once its answer is read. */
  async function initialize(srv: RunningHttp, agent: string): Promise<number> {
    const res = await srv.initialize(tokens[agent] as string, "share-e2e");
    await res.text();
    return res.status;
  }

  /** How many of `agent`'s sessions the replica of data dir `d` holds, as its first event to `rta operator` says. */
  async function held(d: { data: string; config: string }, agent: string): Promise<number> {
    const op = Bun.spawn([RTA, "operator", "--json"], {
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: d.data, RTA_CONFIG_DIR: d.config },
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = (op.stdout as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    op.kill();
    await op.exited;
    const first = JSON.parse(text.split("\n")[0] as string) as { event: string; sessions: { agent: string }[] };
    expect(first.event).toBe("server");
    return first.sessions.filter((s) => s.agent === agent).length;
  }

  const rows = async (agent: string): Promise<number> => {
    const sql = new SQL(store, { max: 1 });
    try {
      const [row] = await sql.unsafe("SELECT count(*)::int AS n FROM mcp_sessions WHERE agent = $1", [agent]);
      return row.n;
    } finally {
      await sql.close();
    }
  };

  beforeAll(async () => {
    store = await (pg?.freshDb() as Promise<string>);
    const root = tempDir();
    replicas = await Promise.all(dirs.map((d) => startHttp(["--root", root, "--store", store], d)));
    for (const agent of ["mallory", "eve"]) {
      const made = await rta(["mcp", "token", "new", "--agent", agent, "--json", "--store", store], {
        env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
      });
      tokens[agent] = JSON.parse(made.stdout).token;
    }
  });
  afterAll(async () => {
    for (const r of replicas) await r.stop();
  });

  test("initializes sent to both replicas at once leave the agent at its share of rows", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    for (let round = 0; round < 4; round++) {
      const said = await Promise.all(Array.from({ length: 60 }, (_, i) => initialize(i % 2 === 0 ? a : b, "mallory")));
      expect(said.filter((s) => s !== 200)).toEqual([]);
      expect(await rows("mallory")).toBeLessThanOrEqual(SESSIONS_PER_AGENT);
    }
  });

  test("a replica whose sessions the other evicted from the store holds no more than the share of copies", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    // A's sessions, then as many again on B: every row of A's is evicted, its copies left on A
    for (let i = 0; i < SESSIONS_PER_AGENT; i++) expect(await initialize(a, "eve")).toBe(200);
    for (let i = 0; i < SESSIONS_PER_AGENT; i++) expect(await initialize(b, "eve")).toBe(200);
    // more on A: each evicts one of B's rows, leaving B a copy, and adds one more copy to A
    for (let i = 0; i < 2 * SESSIONS_PER_AGENT; i++) expect(await initialize(a, "eve")).toBe(200);
    for (let i = 0; i < 2 * SESSIONS_PER_AGENT; i++) expect(await initialize(b, "eve")).toBe(200);
    expect(await rows("eve")).toBe(SESSIONS_PER_AGENT);
    expect(await held(dirs[0] as { data: string; config: string }, "eve")).toBeLessThanOrEqual(SESSIONS_PER_AGENT);
    expect(await held(dirs[1] as { data: string; config: string }, "eve")).toBeLessThanOrEqual(SESSIONS_PER_AGENT);
  });
});
