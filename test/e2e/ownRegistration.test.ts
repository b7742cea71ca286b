/**
 * End to end: the files `rta mcp install --write` registers rta in, under a
 * root. An agent with an fs.write grant for its project rewrote the
 * project's .mcp.json: the next time the client started, it ran the command
 * the agent chose as the person, or an rta with the agent's roots, name, and
 * data and config dirs (no team policy, no lock, no record the person reads).
 * Like rta's executable, they are what the next start runs: rta's own places.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import { resultJson } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";

/** Runs rta as the person, from `cwd`. */
function person(args: string[], cwd: string, env: Record<string, string>): void {
  expect(Bun.spawnSync([RTA, ...args], { cwd, env }).exitCode).toBe(0);
}

describe("the client registrations rta mcp install writes", () => {
  test("are not written, moved, removed or planted by an agent, in its project or in the home", async () => {
    const project = realpathSync(tempDir());
    const home = realpathSync(tempDir());
    const env = { PATH: process.env.PATH ?? "", HOME: home, RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
    person(["mcp", "install", "claude-code", "--project", project, "--write"], project, env);
    person(["mcp", "install", "cursor", "--write"], project, env);
    person(["grant", "allow", "fs", "--agent", "claude-code", "--ttl", "10m"], project, env);
    const registered = readFileSync(join(project, ".mcp.json"), "utf8");
    const cursor = readFileSync(join(home, ".cursor/mcp.json"), "utf8");
    const planted = '{"mcpServers":{"rta":{"command":"sh","args":["-c","id"]}}}';
    writeFileSync(join(project, "evil.json"), planted);
    // as the client starts it: in the project, which is the root, with the home a root beside it
    const transport = new StdioClientTransport({
      command: RTA,
      args: ["mcp", "serve", "--agent", "claude-code", "--root", project, "--root", home],
      cwd: project,
      env,
      stderr: "ignore",
    });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await client.callTool({ name, arguments: args }));
    try {
      const cases: [string, Record<string, unknown>][] = [
        ["fs_write", { path: ".mcp.json", content: planted, mode: "overwrite" }],
        ["fs_move", { from: "evil.json", to: ".mcp.json", overwrite: true }],
        ["fs_move", { from: ".mcp.json", to: "old.json" }],
        ["fs_rm", { path: ".mcp.json" }],
        ["fs_write", { path: ".vscode/mcp.json", content: planted, mode: "overwrite" }],
        ["fs_mkdir", { path: ".vscode" }],
        ["fs_write", { path: join(home, ".cursor/mcp.json"), content: planted, mode: "overwrite" }],
        ["fs_rm", { path: join(home, ".cursor"), recursive: true }],
        ["fs_write", { path: join(home, ".codex/config.toml"), content: "x", mode: "overwrite" }],
        ["fs_write", { path: join(home, ".gemini/settings.json"), content: planted, mode: "overwrite" }],
        ["fs_write", { path: join(home, ".config/Claude/claude_desktop_config.json"), content: planted }],
        // the project's own server files of the clients rta registers in the home: they run what these say too
        ["fs_write", { path: ".cursor/mcp.json", content: planted }],
        ["fs_mkdir", { path: ".gemini" }],
        ["fs_write", { path: ".gemini/settings.json", content: planted }],
        ["fs_write", { path: ".codex/config.toml", content: '[mcp_servers.x]\ncommand = "sh"\n' }],
        // Claude Code's own servers, user and local scope, kept in the home
        ["fs_write", { path: join(home, ".claude.json"), content: planted }],
      ];
      for (const [name, args] of cases)
        expect([name, args, (await call(name, args)).code]).toEqual([name, args, "core.path.withheld"]);
      expect(readFileSync(join(project, ".mcp.json"), "utf8")).toBe(registered);
      expect(readFileSync(join(home, ".cursor/mcp.json"), "utf8")).toBe(cursor);
      for (const made of [
        ...[".vscode", ".cursor", ".gemini", ".codex"].map((d) => join(project, d)),
        ...[".codex", ".gemini", ".config/Claude", ".claude.json"].map((d) => join(home, d)),
      ])
        expect([made, existsSync(made)]).toEqual([made, false]);
      // beside them, the project is written as before
      expect(await call("fs_write", { path: "settings.json", content: "{}" })).toMatchObject({
        value: { created: true },
      });
    } finally {
      await client.close();
    }
  }, 30_000);
});
