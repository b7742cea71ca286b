/**
 * End to end: the operator's config with dist/rta: a broken config.toml and a
 * notes folder from a connection. rta doctor is tested in-process in
 * test/cli/doctor.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RECHECK_MS } from "../../src/core/recheck.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

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
      // a running server looks at its config at most every RECHECK_MS: waited past, not timed
      await Bun.sleep(RECHECK_MS + 50);
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
