/**
 * End to end: the operator channel (src/operator/) and `rta operator` piped.
 * Every running server, stdio or HTTP, listens on a socket of its own in the
 * run dir; one `rta operator` sees them all and their calls, answers a
 * pending consent, and a lock through it cancels an agent's call in flight.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { OperatorClient } from "../../src/operator/client.ts";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { AS_NOBODY } from "../support/nobody.ts";
import { watchOperator } from "../support/operatorStream.ts";
import { installPlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

const fixture = (name: string) => join(import.meta.dir, "..", "fixtures", "plugins", `rta-plugin-${name}`);

/** An MCP client over HTTP as `agent`, on the 2025-11-25 era (a session of its own). */
async function httpClient(srv: Awaited<ReturnType<typeof startHttp>>, agent: string): Promise<Client> {
  const client = new Client({ name: agent, version: "1.0.0" });
  const token = await srv.token(agent);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe("rta operator, piped", () => {
  test("sees a stdio server and an HTTP server of one data dir, each with its calls", { timeout: 30_000 }, async () => {
    const data = tempDir();
    const config = tempDir();
    const stdio = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const srv = await startHttp([], { data, config });
    const remote = await httpClient(srv, "cursor");
    const op = await watchOperator({ RTA_DATA_DIR: data, RTA_CONFIG_DIR: config }, 2);
    try {
      const hellos = op.events.filter((e) => e.event === "server");
      expect(hellos.map((h) => h.transport).sort()).toEqual(["http", "stdio"]);
      // the socket is the server's own, private, in a private dir
      const run = join(data, "run");
      expect(statSync(run).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(run)) expect(statSync(join(run, name)).mode & 0o777).toBe(0o600);

      expect(resultJson(await stdio.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
      await remote.callTool({ name: "fs_stat", arguments: { path: "/" } });
      const ended = (agent: string) =>
        op.next((e) => e.event === "call_ended" && e.agent === agent) as Promise<Record<string, unknown>>;
      expect(await ended("claude")).toMatchObject({ tool: "sys_info", outcome: "ok" });
      expect(await ended("cursor")).toMatchObject({ tool: "fs_stat" });
      const started = op.events.find((e) => e.event === "call_started" && e.agent === "cursor");
      // the arguments as a person is shown them (a remote agent's root is named as it sees it)
      expect(started).toMatchObject({ tool: "fs_stat", args: { path: expect.any(String) } });
      // the HTTP session opened before the operator watched is in its server's hello
      const http = hellos.find((h) => h.transport === "http") as { sessions: { agent: string }[] };
      expect(http.sessions.map((x) => x.agent)).toEqual(["cursor"]);
    } finally {
      await remote.close();
      await stdio.close();
      await srv.stop();
    }
    // both servers said they ended, and removed their sockets
    await op.next((e) => e.event === "server_ended" && op.events.filter((x) => x.event === "server_ended").length >= 2);
    const { code, stderr } = await op.stop();
    expect(stderr).toBe("");
    expect(code).toBe(130);
    expect(readdirSync(join(data, "run"))).toEqual([]);
  });

  test("approves one consent and denies another, asked through the channel", { timeout: 30_000 }, async () => {
    const data = tempDir();
    const config = tempDir();
    const root = tempDir();
    writeFileSync(join(root, "a.txt"), "hello\n");
    writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.stat"]\nconsent = "operator"\n');
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const op = await watchOperator(env);
    try {
      for (const [verb, expected] of [
        ["approve", "ok"],
        ["deny", "core.consent.declined"],
      ] as const) {
        const call = s.client.callTool({ name: "fs_stat", arguments: { path: join(root, "a.txt") } });
        const pending = await op.next(
          (e) =>
            e.event === "consent_pending" && !op.events.some((x) => x.event === "consent_answered" && x.id === e.id),
        );
        expect(pending).toMatchObject({ agent: "claude", tool: "fs_stat", kind: "consent" });
        expect(String(pending.message)).toContain("claude asks to run fs.stat");
        const answered = await rta(["operator", verb, String(pending.id)], { env });
        expect(answered).toMatchObject({ code: 0, stderr: "" });
        const result = resultJson(await call);
        if (expected === "ok") expect(result.type).toBe("object");
        else expect(result).toMatchObject({ type: "error", code: expected });
      }
      // an id no server holds is said so, with its code
      const unknown = await rta(["operator", "approve", "deadbeef"], { env });
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain("(core.operator.unknown)");
    } finally {
      await s.close();
      await op.stop();
    }
  });

  test("asks the operator for a client that cannot ask its user, while one watches", { timeout: 30_000 }, async () => {
    const data = tempDir();
    const config = tempDir();
    const root = tempDir();
    writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.stat"]\n');
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const op = await watchOperator(env);
    try {
      const call = s.client.callTool({ name: "fs_stat", arguments: { path: root } });
      const pending = await op.next((e) => e.event === "consent_pending");
      expect((await rta(["operator", "approve", String(pending.id)], { env })).code).toBe(0);
      expect(resultJson(await call).type).toBe("object");
    } finally {
      await s.close();
      await op.stop();
    }
  });

  test("masks in a call's arguments a value the agent stored as a secret, as the record does", {
    timeout: 30_000,
  }, async () => {
    const data = tempDir();
    const config = tempDir();
    const identity = join(tempDir(), "id.txt");
    Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "pipe" });
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, RTA_KV_IDENTITY: identity };
    const s = await connect("legacy", ["--agent", "claude", "--root", data], { dataDir: data, env });
    const op = await watchOperator(env);
    const secret = "hunter2-very-secret-value";
    try {
      expect((await rta(["grant", "allow", "kv", "--agent", "claude", "--ttl", "5m", "--yes"], { env })).code).toBe(0);
      const set = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "api", value: secret } }));
      expect(set.type).not.toBe("error");
      await s.client.callTool({ name: "fs_stat", arguments: { path: join(data, secret) } });
      const started = await op.next((e) => e.event === "call_started" && e.tool === "fs_stat");
      expect(JSON.stringify(started)).not.toContain(secret);
      expect(JSON.stringify(started)).toContain("***");
    } finally {
      await s.close();
      await op.stop();
    }
  });

  test("with no server running, approve says so", async () => {
    const r = await rta(["operator", "approve", "deadbeef"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("(core.operator.unknown)");
  });
});

describe("stop an agent now", () => {
  test("a lock cancels the agent's call in flight and ends its HTTP session, each recorded", {
    timeout: 30_000,
  }, async () => {
    const data = tempDir();
    const config = tempDir();
    await installPlugin(fixture("demo"), data, { HOME: tempDir() });
    const srv = await startHttp([], { data, config });
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    const client = await httpClient(srv, "claude");
    const op = await watchOperator(env);
    try {
      // demo.sleep answers only once it is cancelled: without the lock it would wait past any test's time
      const hung = client.callTool({ name: "demo_sleep", arguments: {} }, { timeout: 60_000 });
      await op.next((e) => e.event === "call_started" && e.tool === "demo_sleep");
      const locked = await rta(["lock", "--agent", "claude"], { env });
      expect(locked.code).toBe(0);
      const cancelled = await op.next((e) => e.event === "call_cancelled");
      expect(cancelled).toMatchObject({ agent: "claude", tool: "demo_sleep" });
      expect(await op.next((e) => e.event === "call_ended" && e.tool === "demo_sleep")).toMatchObject({
        outcome: "core.lock.locked",
      });
      await op.next((e) => e.event === "session_ended" && e.agent === "claude");
      // the call is answered with the lock before the session ends
      expect(resultJson(await hung)).toMatchObject({ type: "error", code: "core.lock.locked" });
      const lines = readRecord(join(data, "agent-log.jsonl")).lines.filter((l) => l.capability === "demo_sleep");
      expect(lines.at(-1)).toMatchObject({ agent: "claude", outcome: "core.lock.locked" });
      expect(lines.at(-1)?.error?.message).toContain("a person locked agent claude");
    } finally {
      await client.close().catch(() => {});
      await srv.stop();
      await op.stop();
    }
  });
});

describe("end a session", () => {
  test("a stdio server's session ended through the channel ends the server, with its end line", {
    timeout: 30_000,
  }, async () => {
    const data = tempDir();
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data });
    await s.client.callTool({ name: "sys_info", arguments: {} });
    const pid = s.pid() as number;
    const client = await OperatorClient.open(join(data, "run"));
    try {
      const session = readdirSync(join(data, "run"))[0]?.replace(".sock", "") as string;
      expect(await client.request({ op: "end_session", session: "nope" })).toMatchObject([
        { ok: false, error: { code: "core.operator.unknown" } },
      ]);
      expect(await client.request({ op: "end_session", session })).toMatchObject([{ ok: true, ended: 1 }]);
      for (let i = 0; i < 200 && isAlive(pid); i++) await Bun.sleep(25);
      expect(isAlive(pid)).toBe(false);
      expect(s.stderr()).toContain("a person ended this session through the operator channel");
      const lines = readRecord(join(data, "agent-log.jsonl")).lines;
      expect(lines.at(-1)).toMatchObject({ kind: "end", session });
    } finally {
      client.close();
      await s.close().catch(() => {});
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the channel's socket", () => {
  test("refuses a process of another user, even when the file modes let it connect", { timeout: 30_000 }, async () => {
    const data = tempDir();
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data });
    try {
      const run = join(data, "run");
      const [socket] = readdirSync(run).map((n) => join(run, n));
      if (socket === undefined) throw new Error("no socket");
      // opened wide on purpose, so only SO_PEERCRED is left to refuse
      chmodSync(data, 0o755);
      chmodSync(run, 0o755);
      chmodSync(socket, 0o666);
      const probe = `const s=require("node:net").connect(${JSON.stringify(socket)});let got="";s.on("data",d=>{got+=d;if(got.includes("\\n"))s.end()});s.on("error",()=>{});s.on("close",()=>console.log(JSON.stringify({got})))`;
      const as = async (prefix: string[]) => {
        const p = Bun.spawn([...prefix, process.execPath, "-e", probe], { stdout: "pipe", stderr: "pipe" });
        const out = await new Response(p.stdout).text();
        await p.exited;
        return JSON.parse(out) as { got: string };
      };
      expect((await as([])).got).toContain('"event":"server"');
      expect((await as(AS_NOBODY)).got).toBe("");
    } finally {
      await s.close();
    }
  });

  test("left by a server that was killed is removed by the next client", { timeout: 30_000 }, async () => {
    const data = tempDir();
    const s = await connect("legacy", [], { dataDir: data });
    const run = join(data, "run");
    const [socket] = readdirSync(run);
    process.kill(s.pid() as number, "SIGKILL");
    await s.close().catch(() => {});
    expect(existsSync(join(run, socket as string))).toBe(true);
    const r = await rta(["operator", "approve", "deadbeef"], { env: { RTA_DATA_DIR: data } });
    expect(r.stderr).toContain("(core.operator.unknown)");
    expect(readdirSync(run)).toEqual([]);
  });

  test("in $XDG_RUNTIME_DIR/rta is withheld from agents, as rta's other dirs are", { timeout: 30_000 }, async () => {
    const home = tempDir();
    const runtime = tempDir();
    const env = {
      RTA_DATA_DIR: "",
      RTA_CONFIG_DIR: "",
      HOME: home,
      XDG_DATA_HOME: join(home, "data"),
      XDG_CONFIG_HOME: join(home, "config"),
      XDG_RUNTIME_DIR: runtime,
    };
    const s = await connect("legacy", ["--agent", "claude", "--root", runtime], { env });
    try {
      const run = join(runtime, "rta");
      const [socket] = readdirSync(run);
      if (socket === undefined) throw new Error("no socket");
      expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "5m", "--yes"], { env })).code).toBe(0);
      for (const [name, args] of [
        ["fs_list", { path: run }],
        ["fs_rm", { path: join(run, socket) }],
        ["fs_write", { path: join(run, "planted"), content: "x" }],
      ] as const)
        expect(resultJson(await s.client.callTool({ name, arguments: args }))).toMatchObject({
          code: "core.path.withheld",
        });
      expect(readdirSync(run)).toEqual([socket]);
    } finally {
      await s.close();
    }
  });

  test("is not opened in a run dir open to others: the server serves, and says why", async () => {
    const data = tempDir();
    const run = join(data, "run");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(run, { mode: 0o777 });
    chmodSync(run, 0o777);
    const s = await connect("legacy", [], { dataDir: data });
    try {
      expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
      expect(s.stderr()).toContain("no operator channel for this server");
      expect(s.stderr()).toContain("wider than 700 (core.operator.unsafe)");
      expect(readdirSync(run)).toEqual([]);
      const r = await rta(["operator", "approve", "x"], { env: { RTA_DATA_DIR: data } });
      expect(r.stderr).toContain("(core.operator.unsafe)");
    } finally {
      await s.close();
    }
  });
});
