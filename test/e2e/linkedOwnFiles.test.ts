/**
 * End to end: rta's own files kept elsewhere through a link, as a team keeps
 * policy.toml in a repository and links it into the config dir (or a person
 * links config.toml from a dotfiles checkout). The link target sat under a
 * root: an agent with an fs grant rewrote the team policy, and the server
 * running took its next call under the ceiling the agent chose. The files a
 * link in rta's dirs leads to are rta's own places, as the dirs are.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

describe("rta's files linked from under a root", () => {
  test("the team policy, the config and the record's key are not read, written or moved away through the root", async () => {
    const root = realpathSync(tempDir());
    const data = tempDir();
    const config = tempDir();
    mkdirSync(join(root, "team/rta"), { recursive: true });
    const policy = 'never = ["fs.rm"]\n';
    const settings = '[connections.prod]\narea = "http"\npassword = "hunter2"\n';
    writeFileSync(join(root, "team/rta/policy.toml"), policy);
    writeFileSync(join(root, "team/rta/config.toml"), settings);
    writeFileSync(join(root, "team/rta/record.key"), "00".repeat(32));
    symlinkSync(join(root, "team/rta/policy.toml"), join(config, "policy.toml"));
    symlinkSync(join(root, "team/rta/config.toml"), join(config, "config.toml"));
    symlinkSync(join(root, "team/rta/record.key"), join(data, "record.key"));
    writeFileSync(join(root, "victim.txt"), "x");
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      expect((await call("fs_rm", { path: "victim.txt" })).code).toBe("core.grant.ceiling");
      const cases: [string, Record<string, unknown>][] = [
        ["fs_write", { path: "team/rta/policy.toml", content: 'agents = ["claude"]\n', mode: "overwrite" }],
        ["fs_write", { path: "team/rta/config.toml", content: 'roots = ["/"]\n', mode: "overwrite" }],
        ["fs_read", { path: "team/rta/config.toml" }],
        ["fs_read", { path: "team/rta/record.key" }],
        ["fs_move", { from: "team/rta/policy.toml", to: "policy.toml" }],
        ["fs_move", { from: "victim.txt", to: "team/rta/policy.toml", overwrite: true }],
        ["fs_move", { from: "team", to: "old-team" }],
        ["fs_mkdir", { path: "team/rta" }],
      ];
      for (const [name, args] of cases)
        expect([name, args, (await call(name, args)).code]).toEqual([name, args, "core.path.withheld"]);
      const grep = await call("fs_grep", { pattern: "hunter2|fs.rm", path: "." });
      expect(grep).toMatchObject({ total: 0 });
      expect(readFileSync(join(root, "team/rta/policy.toml"), "utf8")).toBe(policy);
      expect(readFileSync(join(root, "team/rta/config.toml"), "utf8")).toBe(settings);
      // the ceiling holds, and beside the linked files the root is written as before
      expect((await call("fs_rm", { path: "victim.txt" })).code).toBe("core.grant.ceiling");
      expect(await call("fs_write", { path: "team/notes.txt", content: "x" })).toMatchObject({
        value: { created: true },
      });
      expect(existsSync(join(root, "victim.txt"))).toBe(true);
    } finally {
      await s.close();
    }
  }, 30_000);
});
