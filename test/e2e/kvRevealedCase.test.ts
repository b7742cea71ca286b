/**
 * End to end: a value kv_get revealed, put back by the agent where rta says it
 * in another case. A host name is said lower-cased, so a call naming
 * `Zq9…​.invalid` was refused naming `zq9….invalid`, and the record kept the
 * value in lower case, which says most of it.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

const VALUE = "Zq9SecretValue123";

test("a revealed value is masked in the record in whatever case a later line holds it", async () => {
  const data = tempDir();
  const identity = join(tempDir(), "id.txt");
  expect(Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode).toBe(0);
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
  expect((await rta(["kv", "set", "k1"], { stdin: VALUE, env })).code).toBe(0);
  expect((await rta(["grant", "allow", "kv.get", "k1", "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
  const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env });
  try {
    const got = resultJson(await s.client.callTool({ name: "kv_get", arguments: { name: "k1" } }));
    expect(got).toEqual({ type: "text", text: VALUE });
    // refused for want of a grant, before any lookup: the hint names the host as it is looked up
    const dns = resultJson(await s.client.callTool({ name: "net_dns", arguments: { name: `${VALUE}.invalid` } }));
    expect(dns.code).toBe("core.grant.required");
    expect(String(dns.hint)).toContain(`${VALUE.toLowerCase()}.invalid`);
  } finally {
    await s.close();
  }
  const record = readFileSync(join(data, "agent-log.jsonl"), "utf8");
  expect(record).toContain('"capability":"net_dns"');
  expect(record.toLowerCase()).not.toContain(VALUE.toLowerCase());
  const log = await rta(["agent", "log", "--json"], { env });
  expect(log.stdout).toContain("***.invalid");
  expect(log.stdout.toLowerCase()).not.toContain(VALUE.toLowerCase());
});

test("a value the agent stored with kv_set is masked in the record lines after it, as a revealed one is", async () => {
  const data = tempDir();
  const identity = join(tempDir(), "id.txt");
  expect(Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode).toBe(0);
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
  expect((await rta(["grant", "allow", "kv.set", "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
  const stored = "zq9storedvalue77";
  const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env });
  try {
    const set = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "k", value: stored } }));
    expect(set).toMatchObject({ type: "object", value: { name: "k", created: true } });
    const dns = resultJson(await s.client.callTool({ name: "net_dns", arguments: { name: `${stored}.invalid` } }));
    expect(dns.code).toBe("core.grant.required");
    const read = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: stored } }));
    expect(read.code).toBe("fs.notfound");
  } finally {
    await s.close();
  }
  const record = readFileSync(join(data, "agent-log.jsonl"), "utf8");
  expect(record).toContain('"capability":"fs_read"');
  expect(record).not.toContain(stored);
});
