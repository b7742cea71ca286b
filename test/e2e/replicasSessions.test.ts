/**
 * End to end: a 2025-11-25 session opened on one `rta mcp serve --http` replica is continued on another of the same
 * PostgreSQL store (test/support/pg.ts), as a load balancer with no stickiness would send it: calls, listings and
 * reads answered by the replica that never saw the initialize; another agent's token refused as for an unknown id;
 * a DELETE through one ends it on both; the row keeps no token or password; a replica restarted serves it still.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { pgServer } from "../support/pg.ts";
import { rta } from "../support/rta.ts";

const pg = await pgServer();

/** The JSON-RPC messages of an answer: one JSON body, or the data lines of an event stream. */
async function messages(res: Response): Promise<{ id?: unknown; result?: unknown; error?: unknown }[]> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return text ? [JSON.parse(text)] : [];
  return text
    .split("\n")
    .filter((l) => l.startsWith("data:") && l.slice(5).trim() !== "")
    .map((l) => JSON.parse(l.slice(5)));
}

describe.skipIf(pg === null)("a 2025-11-25 session across two replicas of one store", () => {
  let store = "";
  let root = "";
  let replicas: RunningHttp[] = [];
  let claude = "";
  let cursor = "";
  const clients: Client[] = [];
  const dirs = [0, 1].map(() => ({ data: tempDir(), config: tempDir() }));

  /** The official client, on the 2025-11-25 revision, initialized on `srv`; its session id. */
  async function opened(srv: RunningHttp): Promise<{ client: Client; id: string }> {
    const transport = new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${claude}` } },
    });
    const client = new Client({ name: "sessions-e2e", version: "7" }, { capabilities: { roots: {} } });
    await client.connect(transport);
    clients.push(client);
    expect(client.getProtocolEra()).toBe("legacy");
    return { client, id: transport.sessionId as string };
  }

  /** One request by hand to `srv` in session `id`, with `token`. */
  function send(srv: RunningHttp, id: string, token: string, method: string, params: unknown = {}, how = "POST") {
    return fetch(srv.url, {
      method: how,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
      },
      ...(how === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 9, method, params }) } : {}),
    });
  }

  async function result(res: Response): Promise<Record<string, unknown>> {
    expect(res.status).toBe(200);
    const [answer] = await messages(res);
    expect(answer?.error).toBeUndefined();
    return answer?.result as Record<string, unknown>;
  }

  const rows = async () => {
    const sql = new SQL(store, { max: 1 });
    try {
      return (await sql.unsafe("SELECT * FROM mcp_sessions ORDER BY created_at")) as Record<string, unknown>[];
    } finally {
      await sql.close();
    }
  };

  beforeAll(async () => {
    store = await (pg?.freshDb() as Promise<string>);
    root = tempDir();
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "a.txt"), "hello");
    replicas = await Promise.all(dirs.map((d) => startHttp(["--root", root, "--store", store], d)));
    const person = (agent: string) =>
      rta(["mcp", "token", "new", "--agent", agent, "--json", "--store", store], {
        env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
      });
    claude = JSON.parse((await person("claude")).stdout).token;
    cursor = JSON.parse((await person("cursor")).stdout).token;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const r of replicas) await r.stop();
  });

  test("opened on A, B answers tools/list, tools/call and resources/read in it; A goes on serving it", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    const { client, id } = await opened(a);
    const listed = await result(await send(b, id, claude, "tools/list"));
    expect((listed.tools as { name: string }[]).map((t) => t.name)).toContain("fs_read");
    const called = await result(
      await send(b, id, claude, "tools/call", { name: "fs_read", arguments: { path: "docs/a.txt" } }),
    );
    expect(JSON.stringify(called)).toContain("hello");
    expect(called.isError).toBeFalsy();
    const read = await result(await send(b, id, claude, "resources/read", { uri: "rta://fs/read/docs%2Fa.txt" }));
    expect(JSON.stringify(read)).toContain("hello");
    const again = await client.callTool({ name: "fs_read", arguments: { path: "docs/a.txt" } });
    expect(again.isError).toBeFalsy();
    expect(b.stderr()).not.toContain("error");
  });

  test("another agent's token on B with that id is refused exactly as an unknown id is", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    const { id } = await opened(a);
    const theirs = await send(b, id, cursor, "tools/list");
    const unknown = await send(b, crypto.randomUUID(), cursor, "tools/list");
    expect(theirs.status).toBe(404);
    expect([theirs.status, await theirs.text()]).toEqual([unknown.status, await unknown.text()]);
    // and on A, which holds it, the same
    const onA = await send(a, id, cursor, "tools/list");
    expect([onA.status, await onA.text()]).toEqual([404, await (await send(a, "x", cursor, "tools/list")).text()]);
    // the refusal did not end it for its own agent
    await result(await send(b, id, claude, "tools/list"));
  });

  test("a DELETE on B ends the session on A too", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    const { client, id } = await opened(a);
    await result(await send(a, id, claude, "tools/list"));
    expect((await send(b, id, claude, "", undefined, "DELETE")).status).toBe(200);
    expect((await send(a, id, claude, "tools/list")).status).toBe(404);
    expect((await send(b, id, claude, "tools/list")).status).toBe(404);
    await expect(client.callTool({ name: "fs_read", arguments: { path: "docs/a.txt" } })).rejects.toThrow();
    expect((await rows()).map((r) => r.id)).not.toContain(id);
  });

  test("the session row holds the agent, revision and client, and no token or password", async () => {
    const [a] = replicas as [RunningHttp, RunningHttp];
    const { id } = await opened(a);
    const row = (await rows()).find((r) => r.id === id) as Record<string, unknown>;
    expect(row).toBeDefined();
    expect(row.agent).toBe("claude");
    expect(row.protocol).toBe("2025-11-25");
    expect(JSON.parse(row.client as string)).toEqual({ name: "sessions-e2e", version: "7" });
    expect(JSON.parse(row.capabilities as string)).toEqual({ roots: {} });
    const text = JSON.stringify(row);
    for (const secret of [claude, cursor, "Bearer"]) expect(text).not.toContain(secret);
    expect(Object.keys(row).sort()).toEqual(
      ["agent", "capabilities", "client", "created_at", "id", "last_used", "protocol"].sort(),
    );
  });

  test("a replica restarted serves the sessions opened before it stopped", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    const { id } = await opened(a);
    const { id: onB } = await opened(b);
    await a.stop();
    const restarted = await startHttp(["--root", root, "--store", store], dirs[0]);
    replicas[0] = restarted;
    for (const sid of [id, onB]) {
      const called = await result(
        await send(restarted, sid, claude, "tools/call", { name: "fs_read", arguments: { path: "docs/a.txt" } }),
      );
      expect(JSON.stringify(called)).toContain("hello");
    }
    await result(await send(b, id, claude, "tools/list"));
  });

  test("an older revision, and a client named with escapes, tabs and 100 KB: B goes on as A agreed", async () => {
    const [a, b] = replicas as [RunningHttp, RunningHttp];
    const name = "\u001b[31mred\ttab\nline";
    const res = await fetch(a.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${claude}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: { elicitation: { form: {} }, experimental: { x: { pad: "y".repeat(1000) } } },
          clientInfo: { name, version: "1", title: "t".repeat(100_000) },
        },
      }),
    });
    const id = res.headers.get("mcp-session-id") as string;
    const [answer] = await messages(res);
    const agreed = (answer?.result as { protocolVersion?: string } | undefined)?.protocolVersion ?? "";
    expect(agreed).toBe("2025-06-18");
    const row = (await rows()).find((r) => r.id === id) as Record<string, unknown>;
    expect(row.protocol).toBe(agreed);
    expect(JSON.parse(row.client as string)).toEqual({ name, version: "1", title: "t".repeat(256) });
    expect(JSON.parse(row.capabilities as string)).toEqual({ elicitation: { form: {} } });
    const onB = await fetch(b.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${claude}`,
        "mcp-session-id": id,
        "mcp-protocol-version": agreed,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect((((await result(onB)).tools as unknown[]) ?? []).length).toBeGreaterThan(0);
  });
});
