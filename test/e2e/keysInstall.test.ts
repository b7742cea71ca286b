/**
 * End to end: `rta mcp install` carries RTA_KV_IDENTITY into a client's
 * registration only with --kv, and says so on stderr; without it, a set
 * RTA_KV_IDENTITY, or an identity in the config dir, is named as left out,
 * with what the server will answer and how to carry it: a server opens no
 * identity it is not handed. Every client file is written under a temp HOME.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as McpClient } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import { resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** Starts the server as a client would from its registration (its env over a bare PATH and HOME) and calls `tool`. */
async function callAsRegistered(
  reg: { command: string; args: string[]; env: Record<string, string> },
  home: string,
  tool: string,
): Promise<Record<string, unknown>> {
  const transport = new StdioClientTransport({
    command: reg.command,
    args: reg.args,
    env: { PATH: process.env.PATH ?? "", HOME: home, ...reg.env },
    stderr: "ignore",
  });
  const client = new McpClient({ name: "e2e", version: "1" });
  await client.connect(transport);
  try {
    return resultJson(await client.callTool({ name: tool, arguments: {} }));
  } finally {
    await client.close();
  }
}

function places() {
  const home = tempDir();
  return {
    home,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
  };
}

describe("rta mcp install and the kv identity", () => {
  test("--kv carries RTA_KV_IDENTITY, resolved, and says what it costs", async () => {
    const { env } = places();
    const id = join(tempDir(), "ops id.txt");
    writeFileSync(id, "", { mode: 0o600 });
    const r = await rta(["mcp", "install", "cursor", "--kv", "--json"], { env: { ...env, RTA_KV_IDENTITY: id } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).env.RTA_KV_IDENTITY).toBe(id);
    expect(r.stderr).toContain(`rta: the registration carries RTA_KV_IDENTITY=${id}`);
    expect(r.stderr).toContain("the server can decrypt every key in the kv store, and each kv.get still needs a grant");
    expect(r.stderr).not.toContain("no identity");
  });

  test("without --kv a set RTA_KV_IDENTITY is left out, and the person is told kv.locked and --kv", async () => {
    const { env } = places();
    const r = await rta(["mcp", "install", "cursor", "--json"], {
      env: { ...env, RTA_KV_IDENTITY: "/nowhere/id.txt" },
    });
    expect(r.code).toBe(0);
    const reg = JSON.parse(r.stdout);
    expect(reg.env.RTA_KV_IDENTITY).toBeUndefined();
    expect(Object.keys(reg.env).sort()).toEqual(["RTA_CONFIG_DIR", "RTA_DATA_DIR"]);
    expect(r.stderr).toContain(
      "rta: note: RTA_KV_IDENTITY (/nowhere/id.txt) is not carried into the registration, so the server's kv tools will answer kv.locked; run again with --kv to carry it",
    );
  });

  test("without --kv and without RTA_KV_IDENTITY nothing is said of the kv store", async () => {
    const { env } = places();
    const r = await rta(["mcp", "install", "cursor"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("RTA_KV_IDENTITY");
    expect(r.stderr).not.toContain("kv");
  });

  test("without --kv, an identity in the config dir is named as not opened, with --kv to carry it", async () => {
    const { env } = places();
    const id = join(env.RTA_CONFIG_DIR, "identity.txt");
    writeFileSync(id, "", { mode: 0o600 });
    const r = await rta(["mcp", "install", "cursor"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("RTA_KV_IDENTITY");
    expect(r.stderr).toContain(
      `rta: note: the server will not open the kv store with ${id}, so its kv tools will answer kv.locked; run again with --kv to carry it`,
    );
  });

  test("--kv without RTA_KV_IDENTITY carries the config dir's identity.txt, and says there is none yet", async () => {
    const { env } = places();
    const r = await rta(["mcp", "install", "cursor", "--kv"], { env });
    expect(r.code).toBe(0);
    const want = join(env.RTA_CONFIG_DIR, "identity.txt");
    expect(JSON.parse(r.stdout).mcpServers.rta.env.RTA_KV_IDENTITY).toBe(want);
    expect(r.stderr).toContain(`rta: note: there is no identity at ${want} yet: \`rta keys new\` makes one`);
  });

  test("--kv --write puts it in the client's file under the home; codex's TOML too", async () => {
    const { home, env } = places();
    const id = join(tempDir(), "id.txt");
    const r = await rta(["mcp", "install", "cursor", "--kv", "--write"], { env: { ...env, RTA_KV_IDENTITY: id } });
    expect(r.code).toBe(0);
    const written = JSON.parse(readFileSync(join(home, ".cursor", "mcp.json"), "utf8"));
    expect(written.mcpServers.rta.env.RTA_KV_IDENTITY).toBe(id);
    const codex = await rta(["mcp", "install", "codex", "--kv"], { env: { ...env, RTA_KV_IDENTITY: id } });
    expect(codex.stdout).toContain(`RTA_KV_IDENTITY = "${id}"`);
  });

  test("a server registered without --kv answers kv.locked with the fix; with --kv it opens the store", async () => {
    const { home, env } = places();
    const id = join(tempDir(), "ops.txt");
    Bun.spawnSync(["age-keygen", "-o", id]);
    const recipient = Bun.spawnSync(["age-keygen", "-y", id]).stdout.toString().trim();
    const plain = join(tempDir(), "plain.txt");
    writeFileSync(plain, '# rta kv 1\n{"name":"deploy-key","value":"v","modified":"2026-12-01T14:00:00.000Z"}\n');
    Bun.spawnSync(["age", "-r", recipient, "-o", join(env.RTA_DATA_DIR, "kv.age"), plain]);
    const without = await rta(["mcp", "install", "cursor", "--json"], { env: { ...env, RTA_KV_IDENTITY: id } });
    const locked = await callAsRegistered(JSON.parse(without.stdout), home, "kv_list");
    expect(locked.code).toBe("kv.locked");
    expect(String(locked.hint)).toContain("rta mcp install --kv");
    const withKv = await rta(["mcp", "install", "cursor", "--kv", "--json"], { env: { ...env, RTA_KV_IDENTITY: id } });
    const listed = await callAsRegistered(JSON.parse(withKv.stdout), home, "kv_list");
    expect(listed.type).toBe("table");
    expect(JSON.stringify(listed.rows)).toContain("deploy-key");
  });

  test("the config dir's identity.txt opens the store for a registration with --kv only", async () => {
    const { home, env } = places();
    const id = join(env.RTA_CONFIG_DIR, "identity.txt");
    Bun.spawnSync(["age-keygen", "-o", id]);
    expect((await rta(["kv", "set", "deploy-key"], { stdin: "v", env })).code).toBe(0);
    const without = await rta(["mcp", "install", "cursor", "--json"], { env });
    const reg = JSON.parse(without.stdout);
    expect(reg.env.RTA_CONFIG_DIR).toBe(env.RTA_CONFIG_DIR);
    const locked = await callAsRegistered(reg, home, "kv_list");
    expect(locked).toEqual({
      type: "error",
      code: "kv.locked",
      message: "the kv store is locked: this server was started without an identity",
      hint: "a person can let it open the store: `rta mcp install --kv` for a registered server, `rta mcp serve --kv` (or RTA_KV_IDENTITY set) for one started by hand",
    });
    const withKv = await rta(["mcp", "install", "cursor", "--kv", "--json"], { env });
    const carried = JSON.parse(withKv.stdout);
    expect(carried.env.RTA_KV_IDENTITY).toBe(id);
    const listed = await callAsRegistered(carried, home, "kv_list");
    expect(JSON.stringify(listed.rows)).toContain("deploy-key");
  });
});
