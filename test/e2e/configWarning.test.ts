/**
 * End to end: a config.toml that does not read is said to the person on
 * stderr by the built binary, once, and never to an agent: a server says it
 * on its own stderr, and no tool result carries it.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

test("a person is told once, and an agent is not told at all", async () => {
  const config = tempDir();
  writeFileSync(join(config, "config.toml"), 'roots = "not a list"\n');
  const r = await rta(["proc", "list", "--limit", "1", "--json"], { env: { RTA_CONFIG_DIR: config } });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe(
    `rta: warning: ${join(config, "config.toml")} does not read (roots must be a list of absolute paths), so rta runs without it\n` +
      "rta: hint: `rta config check` lists every problem in it\n",
  );
  const s = await connect("modern", ["--root", tempDir()], { env: { RTA_CONFIG_DIR: config } });
  try {
    const info = await s.client.callTool({ name: "sys_info", arguments: {} });
    expect(JSON.stringify(info)).not.toContain("does not read");
    expect(JSON.stringify(info)).not.toContain("config check");
    expect(resultJson(info).type).toBe("object");
    expect(s.stderr().match(/does not read/g)).toHaveLength(1);
  } finally {
    await s.close();
  }
});

test("a config naming a store that does not read stops a server, the grant verbs and agent log, rather than fall back to gate.db", async () => {
  const config = tempDir();
  const data = tempDir();
  writeFileSync(join(config, "config.toml"), 'store = "mysql://ops:s3cret@127.0.0.1:1/rta"\n[limits]\n');
  const env = { RTA_CONFIG_DIR: config, RTA_DATA_DIR: data };
  const serve = await rta(["mcp", "serve", "--http", "127.0.0.1:0"], { env });
  expect(serve.code).toBe(2);
  expect(serve.stderr).toContain("config.toml names a shared store but does not read");
  expect(serve.stderr).toContain("(core.config.invalid)");
  expect(serve.stderr).not.toContain("listening");
  const list = await rta(["grant", "list"], { env });
  expect(list.code).toBe(2);
  expect(list.stderr).toContain("(core.config.invalid)");
  // nor does agent log read the data dir's file in place of the store's record
  const log = await rta(["agent", "log"], { env });
  expect(log.code).toBe(2);
  expect(log.stderr).toContain("(core.config.invalid)");
  for (const r of [serve, list, log]) expect(r.stderr + r.stdout).not.toContain("s3cret");
  // a config that does not read and names no store still runs without it, as before
  writeFileSync(join(config, "config.toml"), 'roots = "not a list"\n[eol]\nstore = 1\n');
  expect((await rta(["grant", "list"], { env })).code).toBe(0);
});

test("a shared store that is no postgres:// URL is refused by the grant verbs and agent log alike, never repeated", async () => {
  const env = { RTA_CONFIG_DIR: tempDir(), RTA_DATA_DIR: tempDir(), RTA_STORE: "mysql://ops:s3cret@127.0.0.1:1/rta" };
  // a grant naming no agent reads the record for it: the same refusal, with the same hint
  for (const args of [
    ["grant", "list"],
    ["agent", "log"],
    ["grant", "allow", "fs.read", "--ttl", "1h"],
  ]) {
    const r = await rta(args, { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a postgres:// URL (core.store.unavailable)");
    expect(r.stderr).toContain(
      "rta: hint: name it as postgres://user@host:5432/db, or leave it unset to use the data dir\n",
    );
    expect(r.stderr).not.toContain("s3cret");
  }
});
