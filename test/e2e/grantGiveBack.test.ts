/**
 * End to end: a use is spent on a call that runs. A call refused after the
 * grant stage and before it runs (a profile's fence, a path outside the
 * roots) did nothing the grant was for, so the use comes back: a one-use
 * grant still serves the call the operator issued it for. A destination no
 * packet could go to is refused before any use is spent; a walk that may
 * have made parents keeps the use it spent.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

async function uses(env: Record<string, string>): Promise<number[]> {
  const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout) as {
    grants: { uses: number }[];
  };
  return listed.grants.map((g) => g.uses);
}

describe("a call refused before it runs gives its use back", () => {
  for (const era of ["modern", "legacy"] as Era[]) {
    test(`${era}: a path outside the roots, through a link or withheld, leaves a one-use fs.write grant whole`, async () => {
      const data = tempDir();
      const config = tempDir();
      const root = tempDir();
      mkdirSync(join(root, "sub"));
      const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
      expect(
        (await rta(["grant", "allow", "fs.write", "--agent", "x", "--ttl", "5m", "--max-uses", "1"], { env })).code,
      ).toBe(0);
      const s = await connect(era, ["--agent", "x", "--root", root], {
        dataDir: data,
        env: { RTA_CONFIG_DIR: config },
      });
      try {
        for (const path of ["../outside.txt", "/etc/rta-outside", "sub/../../outside.txt", ".git/hooks/pre-commit"]) {
          const r = resultJson(await s.client.callTool({ name: "fs_write", arguments: { path, content: "x" } }));
          expect({ path, code: String(r.code).startsWith("core.path.") }).toEqual({ path, code: true });
        }
        expect(await uses(env)).toEqual([0]);
        const ok = await s.client.callTool({ name: "fs_write", arguments: { path: "sub/in.txt", content: "x" } });
        expect(ok.isError).toBeFalsy();
      } finally {
        await s.close();
      }
      expect(existsSync(join(root, "sub", "in.txt"))).toBe(true);
      expect(await uses(env)).toEqual([1]);
    });
  }

  test("a value outside a profile's fence leaves the one-use grant for that profile whole", async () => {
    const data = tempDir();
    const config = tempDir();
    const folder = tempDir();
    writeFileSync(
      join(config, "config.toml"),
      `[connections.work-notes]\narea = "note"\nfolder = "${folder}"\n` +
        `[profiles.work]\narea = "note"\nconnection = "work-notes"\nonly = { title = ["plan"] }\n`,
    );
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    const issued = await rta(
      ["grant", "allow", "note.add", "--agent", "x", "--ttl", "5m", "--max-uses", "1", "--profile", "work"],
      { env },
    );
    expect(issued.code).toBe(0);
    const s = await connect("legacy", ["--agent", "x"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const fenced = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "other", body: "b", profile: "work" } }),
      );
      expect(fenced.code).toBe("core.profile.fenced");
      expect(await uses(env)).toEqual([0]);
      const ok = await s.client.callTool({
        name: "note_add",
        arguments: { title: "plan", body: "b", profile: "work" },
      });
      expect(ok.isError).toBeFalsy();
    } finally {
      await s.close();
    }
    expect(readdirSync(folder).filter((f) => f.endsWith(".json"))).toHaveLength(1);
    expect(await uses(env)).toEqual([1]);
  });

  test("a destination no packet could go to is refused as net.badhost before a hostless grant's use is spent", async () => {
    const data = tempDir();
    const config = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    for (const cap of ["http.get", "net.port"])
      expect((await rta(["grant", "allow", cap, "--agent", "x", "--ttl", "5m", "--max-uses", "1"], { env })).code).toBe(
        0,
      );
    const s = await connect("modern", ["--agent", "x"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      for (const url of [
        "ftp://a.test/",
        "not a url",
        "http://user:pw@a.test/",
        "http://a..b/",
        "http://[fe80::1%25lo]/",
      ]) {
        const r = resultJson(await s.client.callTool({ name: "http_get", arguments: { url } }));
        expect({ url, code: r.code }).toEqual({ url, code: "net.badhost" });
      }
      for (const host of ["127.0.0.1:22", "a b", "a..b"]) {
        const r = resultJson(await s.client.callTool({ name: "net_port", arguments: { host, ports: "22" } }));
        expect({ host, code: r.code }).toEqual({ host, code: "net.badhost" });
      }
    } finally {
      await s.close();
    }
    expect(await uses(env)).toEqual([0, 0]);
  });

  test("a walk that makes parents keeps its use when refused: it may have made some", async () => {
    const data = tempDir();
    const config = tempDir();
    const root = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    expect(
      (await rta(["grant", "allow", "fs.mkdir", "--agent", "x", "--ttl", "5m", "--max-uses", "2"], { env })).code,
    ).toBe(0);
    const s = await connect("legacy", ["--agent", "x", "--root", root], {
      dataDir: data,
      env: { RTA_CONFIG_DIR: config },
    });
    try {
      const plain = resultJson(await s.client.callTool({ name: "fs_mkdir", arguments: { path: "../up" } }));
      expect(plain.code).toBe("core.path.outside");
      expect(await uses(env)).toEqual([0]);
      const parents = resultJson(
        await s.client.callTool({ name: "fs_mkdir", arguments: { path: "a/../../up", parents: true } }),
      );
      expect(parents.code).toBe("core.path.outside");
      expect(await uses(env)).toEqual([1]);
    } finally {
      await s.close();
    }
  });
});
