import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  configPath,
  mergeInto,
  registration,
  registrationFiles,
  renderRegistration,
  writeRegistration,
} from "../../src/mcp/install.ts";
import { tempDir } from "../support/fixtures.ts";
import { rta } from "../support/rta.ts";

const opts = { binary: "/opt/rta/bin/rta", roots: ["/srv/projects", "/tmp/scratch"], maxResultMiB: 16 };

describe("the registration", () => {
  test("holds the binary's path, mcp serve, --agent <client>, the roots and max-result", () => {
    const reg = registration("claude", opts);
    expect(reg.command).toBe("/opt/rta/bin/rta");
    expect(reg.args).toEqual([
      "mcp",
      "serve",
      "--agent",
      "claude",
      "--root",
      "/srv/projects",
      "--root",
      "/tmp/scratch",
      "--max-result",
      "16",
    ]);
    expect(registration("cursor", { ...opts, agent: "ci-bot" }).args.slice(2, 4)).toEqual(["--agent", "ci-bot"]);
  });

  test("takes each client's own format", () => {
    expect(JSON.parse(renderRegistration(registration("claude", opts))).mcpServers.rta.command).toBe(
      "/opt/rta/bin/rta",
    );
    expect(JSON.parse(renderRegistration(registration("vscode", opts))).servers.rta.type).toBe("stdio");
    expect(JSON.parse(renderRegistration(registration("claude-code", opts))).mcpServers.rta.type).toBe("stdio");
    const toml = renderRegistration(registration("codex", opts));
    expect(toml).toStartWith('[mcp_servers.rta]\ncommand = "/opt/rta/bin/rta"\nargs = ["mcp", "serve"');
    expect(Bun.TOML.parse(toml)).toEqual({
      mcp_servers: { rta: { command: opts.binary, args: registration("codex", opts).args } },
    });
  });

  test("carries RTA_DATA_DIR and RTA_CONFIG_DIR when they are set, so the server sees the grants the person issues", () => {
    const env = { RTA_DATA_DIR: "/srv/rta/data", RTA_CONFIG_DIR: "/srv/rta/config", HOME: "/h" };
    expect(registration("claude", opts).env).toBeUndefined();
    const want = { RTA_DATA_DIR: "/srv/rta/data", RTA_CONFIG_DIR: "/srv/rta/config" };
    expect(JSON.parse(renderRegistration(registration("cursor", { ...opts, env }))).mcpServers.rta.env).toEqual(want);
    const toml = Bun.TOML.parse(renderRegistration(registration("codex", { ...opts, env }))) as {
      mcp_servers: { rta: { env: unknown } };
    };
    expect(toml.mcp_servers.rta.env).toEqual(want);
  });

  test("knows where each client keeps its config", () => {
    expect(configPath("claude", "/h", "/w", "linux")).toBe("/h/.config/Claude/claude_desktop_config.json");
    expect(configPath("claude", "/h", "/w", "darwin")).toBe(
      "/h/Library/Application Support/Claude/claude_desktop_config.json",
    );
    expect(configPath("vscode", "/h", "/w")).toBe("/w/.vscode/mcp.json");
    expect(configPath("codex", "/h", "/w")).toBe("/h/.codex/config.toml");
  });

  test("names every file a registration goes into, for the gate to keep; none in a home that is no absolute path", () => {
    expect(registrationFiles("/h", "/w", "linux")).toEqual([
      "/h/.config/Claude/claude_desktop_config.json",
      "/w/.mcp.json",
      "/h/.cursor/mcp.json",
      "/w/.vscode/mcp.json",
      "/h/.codex/config.toml",
      "/h/.gemini/settings.json",
    ]);
    expect(registrationFiles(undefined, "/w", "linux")).toEqual(["/w/.mcp.json", "/w/.vscode/mcp.json"]);
    expect(registrationFiles("h", "/w", "linux")).toEqual(["/w/.mcp.json", "/w/.vscode/mcp.json"]);
  });
});

describe("merging", () => {
  test("keeps the other servers and settings, and replaces an earlier rta entry", () => {
    const existing = JSON.stringify({
      theme: "dark",
      mcpServers: { other: { command: "x" }, rta: { command: "old" } },
    });
    const merged = JSON.parse(mergeInto(existing, registration("gemini", opts), "f"));
    expect(merged.theme).toBe("dark");
    expect(merged.mcpServers.other).toEqual({ command: "x" });
    expect(merged.mcpServers.rta.command).toBe("/opt/rta/bin/rta");
  });

  test("codex: an earlier [mcp_servers.rta] table and its sub-tables are replaced, the rest kept", () => {
    const existing =
      'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n\n[mcp_servers.rta]\ncommand = "old"\n\n[mcp_servers.rta.env]\nA = "1"\n\n[profiles.x]\nmodel = "y"\n';
    const parsed = Bun.TOML.parse(mergeInto(existing, registration("codex", opts), "f")) as Record<
      string,
      Record<string, unknown>
    >;
    expect(parsed.model as unknown).toBe("o3");
    expect(parsed.mcp_servers?.other).toEqual({ command: "x" });
    expect(parsed.mcp_servers?.rta).toEqual({ command: opts.binary, args: registration("codex", opts).args });
    expect(parsed.profiles).toEqual({ x: { model: "y" } });
  });

  test("refuses to write into a file it cannot read as JSON", () => {
    expect(() => mergeInto("{not json", registration("cursor", opts), "/h/.cursor/mcp.json")).toThrow(
      /not a JSON object/,
    );
  });

  test("writes atomically after a backup of the old file", () => {
    const dir = tempDir();
    const file = join(dir, "sub", "mcp.json");
    expect(writeRegistration(registration("cursor", opts), file).backup).toBeUndefined();
    writeFileSync(file, JSON.stringify({ mcpServers: { keep: { command: "k" } } }));
    const w = writeRegistration(registration("cursor", opts), file, new Date("2026-11-30T10:00:00Z"));
    expect(w.backup).toBe(`${file}.bak-2026-11-30T10-00-00-000Z`);
    expect(existsSync(w.backup as string)).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["keep", "rta"]);
    expect(readdirSync(join(dir, "sub")).filter((f) => f.includes("rta-tmp"))).toEqual([]);
  });
});

describe("rta mcp install", () => {
  test("prints the registration with the binary's absolute path, writing nothing", async () => {
    const home = tempDir();
    const project = tempDir();
    const r = await rta(["mcp", "install", "cursor", "--root", project, "--json"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.command).toMatch(/\/dist\/rta$/);
    expect(out.args).toEqual(["mcp", "serve", "--agent", "cursor", "--root", project]);
    expect(existsSync(join(home, ".cursor"))).toBe(false);
  });

  test("a root that is not a directory is refused; no root at all is warned of", async () => {
    const home = tempDir();
    const missing = await rta(["mcp", "install", "cursor", "--root", join(home, "gone")], { env: { HOME: home } });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("is not a directory (core.input.invalid)");
    const none = await rta(["mcp", "install", "cursor"], { env: { HOME: home } });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain("no --root");
  });

  test("--write merges into the client's file", async () => {
    const home = tempDir();
    const r = await rta(["mcp", "install", "gemini", "--write", "--max-result", "32"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    const cfg = JSON.parse(readFileSync(join(home, ".gemini", "settings.json"), "utf8"));
    expect(cfg.mcpServers.rta.args).toContain("32");
  });

  test("an unknown client is core.input.option, listing the clients", async () => {
    const r = await rta(["mcp", "install", "notepad"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.input.option)");
    expect(r.stderr).toContain("claude, claude-code, cursor, vscode, codex, gemini");
  });
});
