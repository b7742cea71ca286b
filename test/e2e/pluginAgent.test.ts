/**
 * End to end: what an agent can make a plugin do. A plugin's declaration
 * never buys the agent more than a built-in's would: a read that would
 * replace a file is no plugin's, a call queued behind another stops at a lock
 * set meanwhile and holds up no other agent's, a reach is covered only by a
 * grant naming the host, a credential under its name is masked in any shape,
 * the child holds nothing of the server's, and a binary replaced where an
 * agent could write is run by no person's verb that runs no capability.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describePlugin, IDLE_CHILDREN_KEPT } from "../../src/plugins/host.ts";
import { pluginFile } from "../../src/plugins/registry.ts";
import { fixture, running as runningPids } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { installPlugin } from "../support/plugins.ts";
import { RTA, rta } from "../support/rta.ts";
import { installedBefore, running } from "./pluginAgent.fixture.ts";

describe("a plugin's read that declares a path to write", () => {
  test("is refused at install, and one installed before is left out: no file is replaced without a grant", async () => {
    const data = tempDir();
    const installed = await rta(["pkg", "install", fixture("sneak"), "--yes"], { env: { RTA_DATA_DIR: data } });
    expect(installed.code).not.toBe(0);
    expect(installed.stderr).toContain("core.plugin.invalid");
    expect(installed.stderr).toContain("sneak.put.file: a path to write needs a write or destructive capability");
    await expect(describePlugin(fixture("sneak"), "sneak")).rejects.toThrow("a path to write needs");

    await installedBefore("sneak", data);
    const root = tempDir();
    writeFileSync(join(root, "kept.txt"), "the person's\n");
    const server = await connect("modern", ["--root", root], { dataDir: data });
    try {
      const tools = (await server.client.listTools()).tools.map((t) => t.name);
      expect(tools).not.toContain("sneak_put");
      // an unknown tool: refused as a protocol error or as a tool error, never run
      const call = await server.client
        .callTool({ name: "sneak_put", arguments: { file: join(root, "kept.txt") } })
        .catch((err: Error) => ({ isError: true, thrown: err.message }));
      expect(call.isError).toBe(true);
      expect(readFileSync(join(root, "kept.txt"), "utf8")).toBe("the person's\n");
    } finally {
      await server.close();
    }
  });
});

describe("a plugin binary an agent replaced in a data dir the server was not started with", () => {
  test("is run by no person's verb but a call of its own: lock, grant, doctor, explain, a token, a built-in's call", async () => {
    const home = tempDir();
    const other = join(home, ".local/share/rta");
    await installPlugin(fixture("demo"), other, { HOME: tempDir() });
    const data = tempDir();
    const granted = await rta(["grant", "allow", "fs.write", "--agent", "x", "--ttl", "10m", "--yes"], {
      env: { RTA_DATA_DIR: data },
    });
    expect(granted.code).toBe(0);
    // the data dir holds no record key nor grant store: it is not known as another rta's, and the agent writes there
    const ran = join(tempDir(), "ran");
    const server = await connect("modern", ["--root", home, "--agent", "x"], { dataDir: data });
    try {
      const wrote = await server.client.callTool({
        name: "fs_write",
        arguments: {
          path: join(other, "plugins/rta-plugin-demo"),
          content: `#!/bin/sh\necho ran >> ${ran}\n`,
          mode: "overwrite",
        },
      });
      expect(resultJson(wrote)).toMatchObject({ type: "object", value: { mode: "overwrite" } });
    } finally {
      await server.close();
    }
    const env = { RTA_DATA_DIR: other };
    const lock = await rta(["lock", "demo", "--agent", "x"], { env });
    expect(lock.code).toBe(0);
    const grant = await rta(["grant", "allow", "demo.echo", "--agent", "x", "--ttl", "1m", "--yes"], { env });
    expect(grant.stderr).toContain("core.plugin.changed");
    const doctor = await rta(["doctor"], { env });
    expect(doctor.stdout).toContain("plugin demo\tits binary changed since it was installed");
    expect((await rta(["explain", "demo.echo"], { env })).code).toBe(0);
    expect((await rta(["completion", "bash"], { env })).code).toBe(0);
    expect((await rta(["mcp", "token", "new", "--agent", "x"], { env })).code).toBe(0);
    expect((await rta(["mcp", "token", "revoke", "--agent", "x"], { env })).code).toBe(0);
    // nor a built-in's capability: only a call of the plugin's own area describes it again
    expect((await rta(["sys", "info"], { env })).code).toBe(0);
    expect(existsSync(ran)).toBe(false);
  });
});

/**
 * An agent x's server over the plugin line installed in `data`, with line.put granted, a line_wait holding the
 * plugin's child and a line_put queued behind it, past the gate (its run line on the record). Abort the wait to let
 * the put go on; close the server after.
 */
async function queuedPut(data: string, env: Record<string, string> = {}) {
  await installPlugin(fixture("line"), data, { HOME: tempDir() });
  const grant = ["grant", "allow", "line.put", "--agent", "x", "--ttl", "10m", "--yes"];
  expect((await rta(grant, { env: { RTA_DATA_DIR: data, ...env } })).code).toBe(0);
  const server = await connect("modern", ["--agent", "x"], { dataDir: data, env });
  try {
    const abort = new AbortController();
    const wait = server.client.callTool({ name: "line_wait", arguments: {} }, { signal: abort.signal });
    wait.catch(() => {});
    const put = server.client.callTool({ name: "line_put", arguments: { text: "a" } });
    // the put has passed the gate once its run line is on the record: it waits for the plugin's child
    const log = join(data, "agent-log.jsonl");
    const queued = () => existsSync(log) && readFileSync(log, "utf8").includes('"kind":"run"');
    for (let i = 0; i < 250 && !queued(); i++) await Bun.sleep(20);
    expect(queued()).toBe(true);
    return { server, abort, put };
  } catch (err) {
    await server.close();
    throw err;
  }
}

describe("a plugin call queued behind another of the same plugin", () => {
  test("is stopped by a lock set while it waited, as a call made then would be", { timeout: 20_000 }, async () => {
    const data = tempDir();
    const { server, abort, put } = await queuedPut(data);
    try {
      expect((await rta(["lock", "--agent", "x"], { env: { RTA_DATA_DIR: data } })).code).toBe(0);
      abort.abort();
      expect(resultJson(await put)).toMatchObject({ type: "error", code: "core.lock.locked" });
    } finally {
      await server.close();
    }
  });

  test("is stopped by its grant revoked while it waited: the plugin is never sent it", {
    timeout: 20_000,
  }, async () => {
    const data = tempDir();
    const { server, abort, put } = await queuedPut(data);
    try {
      expect((await rta(["grant", "revoke", "--agent", "x"], { env: { RTA_DATA_DIR: data } })).code).toBe(0);
      abort.abort();
      const said = resultJson(await put);
      expect(said).toMatchObject({ type: "error", code: "core.grant.required" });
      expect(String(said.message)).toContain("was revoked while the call waited its turn");
    } finally {
      await server.close();
    }
  });
});

describe("a plugin call queued behind another, under a team policy tightened while it waited", () => {
  test("is refused as a call made then would be: the ceiling is applied at each call", {
    timeout: 20_000,
  }, async () => {
    const config = tempDir();
    const { server, abort, put } = await queuedPut(tempDir(), { RTA_CONFIG_DIR: config });
    try {
      writeFileSync(join(config, "policy.toml"), 'never = ["line"]\n');
      // past the 100 ms a server reads policy.toml at most once in
      await Bun.sleep(250);
      abort.abort();
      expect(resultJson(await put)).toMatchObject({ type: "error", code: "core.grant.ceiling" });
    } finally {
      await server.close();
    }
  });
});

describe("a plugin's read that reaches the destination an agent names", () => {
  test("is covered only by a grant naming the host: the plugin connects where rta cannot check the address", async () => {
    const data = tempDir();
    await installPlugin(fixture("reach"), data, { HOME: tempDir() });
    const env = { RTA_DATA_DIR: data };
    const hostless = await rta(["grant", "allow", "reach.get", "--agent", "x", "--ttl", "10m", "--yes"], { env });
    expect(hostless.code).toBe(0);
    expect(hostless.stderr).toContain("hosts: none until one is named with --host");
    const server = await connect("modern", ["--agent", "x"], { dataDir: data });
    try {
      // a name the agent chose may resolve to a loopback, private or metadata address; a built-in would see that
      const any = resultJson(
        await server.client.callTool({ name: "reach_get", arguments: { url: "http://metadata.example.test/" } }),
      );
      expect(any).toMatchObject({ type: "error", code: "core.grant.required" });
      expect(String(any.message)).toContain("plugin reach connects where rta cannot check the address");
      expect(String(any.hint)).toContain("--host metadata.example.test");
      const named = await rta(
        ["grant", "allow", "reach.get", "--agent", "x", "--ttl", "10m", "--host", "status.example.test", "--yes"],
        { env },
      );
      expect(named.code).toBe(0);
      const ok = await server.client.callTool({
        name: "reach_get",
        arguments: { url: "https://status.example.test/" },
      });
      expect(resultJson(ok)).toEqual({ type: "text", text: "fetched" });
    } finally {
      await server.close();
    }
  });
});

describe("a plugin's answer holding a credential under its name", () => {
  test("is masked for an agent in a table's column and a tree node's value, as an object's key masks it", async () => {
    const data = tempDir();
    await installPlugin(fixture("creds"), data, { HOME: tempDir() });
    const server = await connect("modern", [], { dataDir: data });
    try {
      const table = resultJson(await server.client.callTool({ name: "creds_table", arguments: {} }));
      expect(table).toEqual({
        type: "table",
        columns: ["name", "password"],
        rows: [
          ["db", "***"],
          ["none", null],
        ],
        total: 2,
      });
      const tree = resultJson(await server.client.callTool({ name: "creds_tree", arguments: {} }));
      expect(tree).toEqual({
        type: "tree",
        root: {
          name: "db",
          children: [
            { name: "user", value: "ops" },
            { name: "password", value: "***" },
          ],
        },
      });
      // a table of names and values: the value in the row that names a credential
      const pairs = resultJson(await server.client.callTool({ name: "creds_pairs", arguments: {} }));
      expect(pairs).toEqual({
        type: "table",
        columns: ["name", "value"],
        rows: [
          ["user", "ops"],
          ["Password", "***"],
          ["port", 5432],
        ],
        total: 3,
      });
      // an object's pairs of a name and a value, as an environment is listed
      const env = resultJson(await server.client.callTool({ name: "creds_env", arguments: {} }));
      expect(env).toEqual({
        type: "object",
        value: {
          env: [
            { name: "user", value: "ops" },
            { name: "PASSWORD", value: "***" },
          ],
        },
      });
    } finally {
      await server.close();
    }
    // a person is shown what is stored, as for an object
    const person = await rta(["creds", "table"], { env: { RTA_DATA_DIR: data } });
    expect(person.stdout).toContain("Zq9-hunter2-sekrit");
  });
});

describe("a plugin's child, started by a server an agent reaches", () => {
  // what the fixture's shell exports of its own (LC_ALL) and sets itself (PWD), beside what rta gives
  const env = "HOME LANG LC_ALL PATH PWD RTA_PLUGIN_PROTOCOL";

  test("over stdio holds no descriptor past stdio and none of the server's environment", async () => {
    const data = tempDir();
    await installPlugin(fixture("fds"), data, { HOME: tempDir() });
    const server = await connect("modern", [], {
      dataDir: data,
      env: { RTA_SECRET_TOKEN: "s3cret", AWS_SECRET_ACCESS_KEY: "k3y" },
    });
    try {
      // a call first, so the record, its key and the grant store are open in the server
      await server.client.callTool({ name: "sys_info", arguments: {} });
      const said = resultJson(await server.client.callTool({ name: "fds_list", arguments: {} }));
      expect(said).toEqual({ type: "object", value: { fds: "", env } });
    } finally {
      await server.close();
    }
  });

  test("over HTTP holds neither the listening socket, the bearer, nor the server's environment", async () => {
    const data = tempDir();
    await installPlugin(fixture("fds"), data, { HOME: tempDir() });
    const srv = await startHttp([], { data, config: tempDir() });
    const client = new Client({ name: "fds-e2e", version: "1.0.0" });
    try {
      const token = await srv.token("x");
      await client.connect(
        new StreamableHTTPClientTransport(new URL(srv.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      await client.callTool({ name: "sys_info", arguments: {} });
      const said = resultJson(await client.callTool({ name: "fds_list", arguments: {} }));
      expect(said).toEqual({ type: "object", value: { fds: "", env } });
    } finally {
      await client.close();
      await srv.stop();
    }
  });
});

describe("two agents of one server over HTTP calling one plugin", () => {
  test("one agent's call that hangs holds up no call of the other's", { timeout: 20_000 }, async () => {
    const data = tempDir();
    await installPlugin(fixture("demo"), data, { HOME: tempDir() });
    const srv = await startHttp([], { data, config: tempDir() });
    const as = async (agent: string) => {
      const client = new Client({ name: agent, version: "1.0.0" });
      const token = await srv.token(agent);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(srv.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const slow = await as("slow");
    const other = await as("other");
    try {
      const abort = new AbortController();
      const hung = slow.callTool({ name: "demo_sleep", arguments: {} }, { signal: abort.signal });
      hung.catch(() => {});
      const file = join(data, "plugins", "rta-plugin-demo");
      for (let i = 0; i < 250 && !running(file); i++) await Bun.sleep(20);
      expect(running(file)).toBe(true);
      // the sleep waits for its cancel; the other agent's echo is answered meanwhile
      const echo = await other.callTool({ name: "demo_echo", arguments: { text: "not held up" } });
      expect(resultJson(echo)).toEqual({ type: "text", text: "not held up" });
      abort.abort();
    } finally {
      await slow.close();
      await other.close();
      await srv.stop();
    }
  });
});

describe("a client that reports a new name on every call, to a server that names its agent by it", () => {
  test("makes no more than a few long-lived plugin children, however many names it reports", {
    timeout: 20_000,
  }, async () => {
    const data = tempDir();
    await installPlugin(fixture("demo"), data, { HOME: tempDir() });
    const proc = Bun.spawn([RTA, "mcp", "serve"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
    });
    const answered = new Set<unknown>();
    let wake = () => {};
    void (async () => {
      let carry = "";
      for await (const chunk of proc.stdout) {
        carry += new TextDecoder().decode(chunk);
        const lines = carry.split("\n");
        carry = lines.pop() ?? "";
        for (const l of lines) answered.add(JSON.parse(l).id);
        wake();
      }
    })();
    const until = async (id: number) => {
      while (!answered.has(id)) await new Promise<void>((resolve) => (wake = resolve));
    };
    const send = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
    const named = (name: string) => ({ "io.modelcontextprotocol/clientInfo": { name, version: "1" } });
    try {
      send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2026-07-28", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      });
      await until(0);
      const calls = IDLE_CHILDREN_KEPT + 4;
      for (let id = 1; id <= calls; id++) {
        send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "demo_echo", arguments: { text: "hi" }, _meta: named(`agent${id}`) },
        });
        await until(id);
      }
      const children = () => runningPids(pluginFile(data, "demo")).length;
      for (let i = 0; i < 250 && children() > IDLE_CHILDREN_KEPT; i++) await Bun.sleep(20);
      expect(children()).toBeLessThanOrEqual(IDLE_CHILDREN_KEPT);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});
