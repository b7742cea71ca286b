/**
 * End to end: the operator's config with dist/rta: a broken config.toml, a
 * notes folder from a connection, and rta doctor.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

function dirsWith(configText?: string) {
  const data = tempDir();
  const config = tempDir();
  if (configText !== undefined) writeFileSync(join(config, "config.toml"), configText);
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

describe("a broken config.toml", () => {
  test("the server starts; what a profile could change is refused, the rest answer; fixing the file lifts it", async () => {
    const { data, config } = dirsWith('[profiles.work\narea = "note"');
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const refused = resultJson(await s.client.callTool({ name: "note_list", arguments: {} }));
      expect(refused.code).toBe("core.profile.unreadable");
      expect(refused.hint).toContain("rta doctor");
      expect(JSON.stringify(refused)).not.toContain(config);
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      expect(s.stderr()).toContain("what a profile could change is refused until it reads");
      writeFileSync(join(config, "config.toml"), '[profiles.work]\narea = "note"\n');
      utimesSync(join(config, "config.toml"), new Date(), new Date(Date.now() + 5000));
      const listed = resultJson(await s.client.callTool({ name: "note_list", arguments: {} }));
      expect(listed.type).toBe("table");
    } finally {
      await s.close();
    }
  });
});

describe("a connection's notes folder, reached through a profile", () => {
  test("note_add with a granted profile writes into the connection's folder", async () => {
    const folder = tempDir();
    const { data, config, env } = dirsWith(
      `[connections.work-notes]\narea = "note"\nfolder = "${folder}"\n[profiles.work]\narea = "note"\nconnection = "work-notes"\n`,
    );
    expect(
      (await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m", "--profile", "work"], { env }))
        .code,
    ).toBe(0);
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const withoutProfile = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "a", body: "b" } }),
      );
      expect(withoutProfile.code).toBe("core.grant.required");
      const added = await s.client.callTool({
        name: "note_add",
        arguments: { title: "plan", body: "b", profile: "work" },
      });
      expect(added.isError).toBeFalsy();
      expect(readdirSync(folder).filter((f) => f.endsWith(".json"))).toHaveLength(1);
      const { tools } = await s.client.listTools();
      const noteAdd = tools.find((t) => t.name === "note_add");
      expect(Object.keys(noteAdd?.inputSchema.properties ?? {})).toEqual(["title", "body", "profile"]);
    } finally {
      await s.close();
    }
  });
});

describe("rta doctor", () => {
  test("on a fresh machine says what is missing and how, and exits 0", async () => {
    const r = await rta(["doctor", "--json"], {
      env: { RTA_DATA_DIR: join(tempDir(), "new-data"), RTA_CONFIG_DIR: join(tempDir(), "new-config") },
    });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(true);
    expect(report.findings.find((f: { check: string }) => f.check === "data dir")).toMatchObject({
      status: "note",
      fix: expect.stringContaining("first use"),
    });
  });

  test("a broken config and an unreadable root are failures with their fix, and it exits non-zero", async () => {
    const missingRoot = join(tempDir(), "gone");
    const { env, config } = dirsWith(`roots = ["${missingRoot}"]\n[defaults."proc.list"]\nlimit = 0\n`);
    const r = await rta(["doctor", "--json"], { env });
    expect(r.code).toBe(1);
    const fails = JSON.parse(r.stdout).findings.filter((f: { status: string }) => f.status === "fail");
    expect(fails.map((f: { check: string }) => f.check).sort()).toEqual(["config", "root"]);
    expect(fails.find((f: { check: string }) => f.check === "root").fix).toContain("does not exist");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "config.toml"), "nonsense");
    const broken = await rta(["config", "check", "--json"], { env });
    expect(broken.code).toBe(2);
    expect(JSON.parse(broken.stdout).problems[0]).toStartWith("is not TOML");
  });

  test("a data dir that is a file is said as that, with no errno, by a grant verb and by doctor", async () => {
    const file = join(tempDir(), "not-a-dir");
    writeFileSync(file, "x");
    const env = { RTA_DATA_DIR: file, RTA_CONFIG_DIR: tempDir() };
    const list = await rta(["grant", "list"], { env });
    expect(list.stderr).toContain("the data dir is not a directory (core.store.unavailable)");
    expect(list.stderr).not.toContain("EEXIST");
    const r = await rta(["doctor", "--json"], { env });
    expect(JSON.parse(r.stdout).findings[0]).toMatchObject({
      check: "data dir",
      status: "fail",
      detail: `${file} is not a directory`,
    });
  });
});
