/**
 * End to end: something other than a file at one of the kv store's names. A
 * FIFO at `kv.age` or `kv.recipients` had a server's kv calls wait for a
 * writer that never came, and one at the store's lock stopped the whole
 * server in a read: every tool, not only the kv ones. Each is now answered.
 */
import { describe, expect, test } from "bun:test";
import { rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

function kvHome() {
  const data = tempDir();
  const config = tempDir();
  const identity = join(tempDir(), "id.txt");
  if (Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "ignore" }).exitCode !== 0) throw new Error("age-keygen");
  return { data, config, identity, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, RTA_KV_IDENTITY: identity } };
}

function fifoAt(file: string): void {
  rmSync(file, { force: true });
  if (Bun.spawnSync(["mkfifo", file]).exitCode !== 0) throw new Error("mkfifo");
}

describe("a FIFO at one of the kv store's names", () => {
  test("at kv.age, kv.age.lock or kv.recipients: each kv call answers, and so does the server", async () => {
    const h = kvHome();
    expect((await rta(["kv", "set", "k1"], { stdin: "value-one", env: h.env })).code).toBe(0);
    expect((await rta(["grant", "allow", "kv.set", "--agent", "claude", "--ttl", "5m"], { env: h.env })).code).toBe(0);
    fifoAt(join(h.data, "kv.recipients"));
    const s = await connect("modern", ["--agent", "claude"], { dataDir: h.data, env: h.env });
    try {
      const status = resultJson(await s.client.callTool({ name: "kv_status", arguments: {} }));
      expect(status).toMatchObject({ type: "object", value: { opens: true, keys: 1, recipients: null } });
      const refused = resultJson(
        await s.client.callTool({ name: "kv_set", arguments: { name: "k2", value: "v2-v2" } }),
      );
      expect(refused).toMatchObject({ code: "kv.recipients", message: "the kv recipients file is not a regular file" });
      rmSync(join(h.data, "kv.recipients"));

      // a lock no rta made is held by no process: the write goes ahead
      fifoAt(join(h.data, "kv.age.lock"));
      const set = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "k2", value: "v2-v2" } }));
      expect(set).toMatchObject({ type: "object", value: { name: "k2", created: true } });

      fifoAt(join(h.data, "kv.age"));
      for (const tool of ["kv_list", "kv_overview"]) {
        const r = resultJson(await s.client.callTool({ name: tool, arguments: {} }));
        expect(r).toMatchObject({ code: "kv.format", message: "the kv store is not a regular file" });
      }
      const wrote = resultJson(await s.client.callTool({ name: "kv_set", arguments: { name: "k3", value: "v3-v3" } }));
      expect(wrote).toMatchObject({ code: "kv.format", message: "the kv store is not a regular file" });
      const info = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
      expect(info.type).toBe("object");
    } finally {
      await s.close();
    }
  });
});

describe("a kv file far larger than any of its kind", () => {
  test("a kv.age is refused before it is read into memory", async () => {
    const h = kvHome();
    expect((await rta(["kv", "set", "k1"], { stdin: "value-one", env: h.env })).code).toBe(0);
    const file = join(h.data, "kv.age");
    // an age header, then 3 GiB of holes: no disk is spent on it
    writeFileSync(file, "age-encryption.org/v1\n");
    truncateSync(file, 3 * 1024 ** 3);
    const listed = await rta(["kv", "list"], { env: h.env });
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain("the kv store is larger than 256 MiB (kv.format)");
  });

  test("an identity or recipients file far larger than any is refused before it is read", async () => {
    const h = kvHome();
    expect((await rta(["kv", "set", "k1"], { stdin: "value-one", env: h.env })).code).toBe(0);
    const recipients = join(h.data, "kv.recipients");
    writeFileSync(recipients, "# rta kv recipients\n");
    truncateSync(recipients, 3 * 1024 ** 3);
    const set = await rta(["kv", "set", "k2"], { stdin: "value-two", env: h.env });
    expect(set.code).not.toBe(0);
    expect(set.stderr).toContain("the kv recipients file is larger than 1 MiB (kv.recipients)");
    rmSync(recipients);
    writeFileSync(h.identity, "# an identity\n", { mode: 0o600 });
    truncateSync(h.identity, 3 * 1024 ** 3);
    const listed = await rta(["kv", "list"], { env: h.env });
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain("the identity file is larger than 64 KiB, more than any identity file");
  });
});
