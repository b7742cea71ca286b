/**
 * End to end: the kv tools over MCP, spoken to by the official client: a read
 * that reveals costs a grant narrowed to the key, a value never reaches the
 * record, `agent log` or an error, and rta's places are named for an agent.
 * A server opens the store only when told to (RTA_KV_IDENTITY or --kv), on
 * stdio and over HTTP, even with an identity in the config dir.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

function kvHome() {
  const data = tempDir();
  const config = tempDir();
  const identity = join(tempDir(), "id.txt");
  if (Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode !== 0) throw new Error("age-keygen");
  return { data, config, identity, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, RTA_KV_IDENTITY: identity } };
}

/** Everything rta keeps in the data dir, as text: the record, its key, the grant store. */
function dataDirText(data: string): string {
  return readdirSync(data)
    .filter((f) => f !== "kv.age" && f !== "kv.age.bak" && statSync(join(data, f)).isFile())
    .map((f) => readFileSync(join(data, f)).toString("latin1"))
    .join("\n");
}

const VALUE = "correct-horse-battery-staple-42";

describe("kv over MCP", () => {
  test("kv_get is refused without a grant, with the exact hint; a one-use grant answers once", async () => {
    const h = kvHome();
    await rta(["kv", "set", "deploy-key"], { stdin: `${VALUE}\n`, env: h.env });
    const s = await connect("modern", ["--agent", "claude"], { dataDir: h.data, env: h.env });
    try {
      const refused = resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "deploy-key" } }));
      expect(refused).toEqual({
        type: "error",
        code: "core.grant.required",
        message: "kv.get needs a grant for agent claude",
        hint: "a person can allow it by running `rta grant allow kv.get deploy-key --agent claude --ttl 5m`",
      });
      const granted = await rta(["grant", "allow", "kv.get", "deploy-key", "--ttl", "5m", "--max-uses", "1"], {
        env: h.env,
      });
      expect(granted.code).toBe(0);
      // a grant for deploy-key reveals no other key
      await rta(["kv", "set", "other"], { stdin: "other-value-x", env: h.env });
      const other = resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "other" } }));
      expect(other.code).toBe("core.grant.required");
      const first = resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "deploy-key" } }));
      expect(first).toEqual({ type: "text", text: VALUE });
      const second = resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "deploy-key" } }));
      expect(second.code).toBe("core.grant.required");
    } finally {
      await s.close();
    }
  });

  test("a value set, revealed and echoed back by the agent reaches no record line, agent log or error", async () => {
    const h = kvHome();
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: h.data, env: h.env });
    try {
      for (const cap of ["kv.set", "kv.get"])
        expect((await rta(["grant", "allow", cap, "--agent", "claude", "--ttl", "5m"], { env: h.env })).code).toBe(0);
      const set = resultJson(
        await s.client.callTool({ name: "kv_set", arguments: { name: "db/prod", value: VALUE, comment: "prod" } }),
      );
      expect(set).toMatchObject({ type: "object", value: { name: "db/prod", created: true } });
      expect(JSON.stringify(set)).not.toContain(VALUE);
      // a refused set (a bad name) says nothing of the value either
      const bad = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "../x", value: VALUE } }));
      expect(bad.code).toBe("core.input.invalid");
      expect(JSON.stringify(bad)).not.toContain(VALUE);
      const got = resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "db/prod" } }));
      expect(got).toEqual({ type: "text", text: VALUE });
      // the agent puts the revealed value where a line would keep it: an argument's name, a tool's name
      const echoed = resultJson(await s.client.callTool({ name: "kv_list", arguments: { [VALUE]: 1 } }));
      expect(echoed.type).toBe("error");
      await s.client.callTool({ name: `x_${VALUE}`, arguments: {} }).catch(() => undefined);
      const listed = resultJson(await s.client.callTool({ name: "kv_list", arguments: {} }));
      expect(listed).toMatchObject({
        columns: ["name", "comment", "modified"],
        rows: [["db/prod", "prod", expect.any(String)]],
      });
      expect(JSON.stringify(listed)).not.toContain(VALUE);
    } finally {
      await s.close();
    }
    expect(dataDirText(h.data)).not.toContain(VALUE);
    expect(dataDirText(h.data)).not.toContain("correct-horse");
    const log = await rta(["agent", "log", "--json"], { env: h.env });
    expect(log.code).toBe(0);
    expect(log.stdout).toContain('"capability":"kv_get"');
    expect(log.stdout).toContain('"capability":"x_***"');
    expect(log.stdout).toContain("***");
    expect(log.stdout + log.stderr).not.toContain(VALUE);
    const verify = await rta(["agent", "log", "--verify"], { env: h.env });
    expect(verify.code).toBe(0);
  });

  test("kv_status names the store <data dir>/kv.age, kv_overview gives ISO times; an error names <identity file>", async () => {
    const h = kvHome();
    await rta(["kv", "set", "db/prod"], { stdin: "v1-value", env: h.env });
    const s = await connect("modern", [], { dataDir: h.data, env: h.env });
    try {
      const status = resultJson(await s.client.callTool({ name: "kv_status", arguments: {} }));
      expect(status).toMatchObject({
        type: "object",
        value: { store: "<data dir>/kv.age", identity: "<identity file>", exists: true, opens: true, keys: 1 },
      });
      const overview = resultJson(await s.client.callTool({ name: "kv_overview", arguments: {} }));
      expect(overview).toMatchObject({
        type: "table",
        columns: ["group", "name", "modified"],
        rows: [["db/", "db/prod", expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)]],
        total: 1,
      });
    } finally {
      await s.close();
    }
    // the identity file RTA_KV_IDENTITY names, unreadable: its path is never told to an agent
    const missing = join(tempDir(), "gone.txt");
    const t = await connect("modern", [], { dataDir: h.data, env: { ...h.env, RTA_KV_IDENTITY: missing } });
    try {
      const tools = (await t.client.listTools()).tools.map((x) => x.name);
      expect(tools).toEqual(
        expect.arrayContaining(["kv_get", "kv_list", "kv_overview", "kv_rm", "kv_set", "kv_status"]),
      );
      for (const never of ["kv_copy", "kv_edit", "keys_export", "keys_import"]) expect(tools).not.toContain(never);
      const locked = resultJson(await t.client.callTool({ name: "kv_list", arguments: {} }));
      expect(locked).toEqual({
        type: "error",
        code: "kv.locked",
        message: "the kv store is locked: there is no identity file (<identity file>)",
        hint: "make one with `rta keys new`, or set RTA_KV_IDENTITY to an age identity file; a server registered by `rta mcp install --kv` inherits it",
      });
      const status = resultJson(await t.client.callTool({ name: "kv_status", arguments: {} }));
      expect(status).toMatchObject({
        value: { opens: false, identity: "<identity file>", problem: { code: "kv.locked" } },
      });
      expect(JSON.stringify(status)).not.toContain(missing);
    } finally {
      await t.close();
    }
  });

  test("the instructions carry the sentence on revealed values, and kv_get's description says what it answers", async () => {
    const h = kvHome();
    const s = await connect("modern", [], { dataDir: h.data, env: h.env });
    try {
      expect(s.client.getInstructions()).toContain(
        "A value a tool that reveals a stored secret answers with enters your context: do not repeat it in a reply, another tool's arguments or a file unless the person asked for it.",
      );
      const get = (await s.client.listTools()).tools.find((t) => t.name === "kv_get");
      expect(get?.description).toContain("The answer is the stored value itself.");
      expect(get?.annotations?.readOnlyHint).toBe(true);
    } finally {
      await s.close();
    }
  });
});

const LOCKED_IN_SERVER = {
  type: "error",
  code: "kv.locked",
  message: "the kv store is locked: this server was started without an identity",
  hint: "a person can let it open the store: `rta mcp install --kv` for a registered server, `rta mcp serve --kv` (or RTA_KV_IDENTITY set) for one started by hand",
};

/** A store written by the CLI with the config dir's identity.txt, which the CLI opens by default. */
function defaultIdentityHome() {
  const data = tempDir();
  const config = tempDir();
  const made = Bun.spawnSync(["age-keygen", "-o", join(config, "identity.txt")], { stderr: "ignore" });
  if (made.exitCode !== 0) throw new Error("age-keygen");
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

describe("a server opens the kv store only when told to", () => {
  test("stdio, with identity.txt in the config dir: kv.locked without --kv or RTA_KV_IDENTITY; --kv opens it", async () => {
    const h = defaultIdentityHome();
    const set = await rta(["kv", "set", "deploy-key"], { stdin: VALUE, env: h.env });
    expect(set.code).toBe(0);
    const s = await connect("modern", ["--agent", "claude"], { dataDir: h.data, env: h.env });
    try {
      expect(s.stderr()).toContain(
        "kv store: locked, no identity handed to this server (neither RTA_KV_IDENTITY nor --kv): the kv tools answer kv.locked",
      );
      const tools = (await s.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(["kv_get", "kv_list", "kv_status", "keys_list", "keys_new"]));
      for (const tool of ["kv_list", "kv_overview", "keys_list", "keys_recipients"]) {
        expect(resultJson(await s.client.callTool({ name: tool, arguments: {} }))).toEqual(LOCKED_IN_SERVER);
      }
      const status = resultJson(await s.client.callTool({ name: "kv_status", arguments: {} }));
      expect(status).toEqual({
        type: "object",
        value: {
          store: "<data dir>/kv.age",
          identity: null,
          exists: true,
          opens: false,
          keys: null,
          problem: { code: "kv.locked", message: LOCKED_IN_SERVER.message, hint: LOCKED_IN_SERVER.hint },
          recipients: null,
        },
      });
      // a write that a grant pays for is refused all the same, and the store is left as it was
      await rta(["grant", "allow", "kv.set", "--agent", "claude", "--ttl", "5m"], { env: h.env });
      const written = resultJson(
        await s.client.callTool({ name: "kv_set", arguments: { name: "other", value: "from-an-agent" } }),
      );
      expect(written).toEqual(LOCKED_IN_SERVER);
      expect((await rta(["kv", "list", "--json"], { env: h.env })).stdout).not.toContain("other");
    } finally {
      await s.close();
    }
    const opened = await connect("modern", ["--kv"], { dataDir: h.data, env: h.env });
    try {
      expect(opened.stderr()).toContain("kv store: identity file ");
      const listed = resultJson(await opened.client.callTool({ name: "kv_list", arguments: {} }));
      expect(JSON.stringify(listed.rows)).toContain("deploy-key");
      const keys = resultJson(await opened.client.callTool({ name: "keys_list", arguments: {} }));
      expect(keys.value).toMatchObject({ identity: "<config dir>/identity.txt", exists: true });
    } finally {
      await opened.close();
    }
  });

  test("RTA_KV_IDENTITY in the server's environment opens the store without --kv", async () => {
    const h = kvHome();
    await rta(["kv", "set", "deploy-key"], { stdin: VALUE, env: h.env });
    const s = await connect("legacy", [], { dataDir: h.data, env: h.env });
    try {
      const listed = resultJson(await s.client.callTool({ name: "kv_list", arguments: {} }));
      expect(JSON.stringify(listed.rows)).toContain("deploy-key");
    } finally {
      await s.close();
    }
  });

  test("over HTTP the same: kv.locked without --kv, the store's keys with it", async () => {
    const h = defaultIdentityHome();
    await rta(["kv", "set", "deploy-key"], { stdin: VALUE, env: h.env });
    for (const [args, opens] of [
      [[], false],
      [["--kv"], true],
    ] as const) {
      const srv = await startHttp([...args], { data: h.data, config: h.config });
      const client = new Client({ name: "kv-http", version: "1" });
      try {
        const token = await srv.token("claude");
        await client.connect(
          new StreamableHTTPClientTransport(new URL(srv.url), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          }),
        );
        const listed = resultJson(await client.callTool({ name: "kv_list", arguments: {} }));
        if (opens) expect(JSON.stringify(listed.rows)).toContain("deploy-key");
        else expect(listed).toEqual(LOCKED_IN_SERVER);
      } finally {
        await client.close();
        await srv.stop();
      }
    }
  });
});
