import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CLIENTS,
  type Client,
  configPath,
  registration,
  registrationFiles,
  renderRegistration,
} from "../../src/mcp/install.ts";
import { appendable, mergeInto, parseAs, writeRegistration } from "../../src/mcp/installMerge.ts";
import { JSON_EDIT_DEPTH_LIMIT } from "../../src/mcp/jsonEdit.ts";
import { tempDir } from "../support/fixtures.ts";

const dirs = { data: "/srv/rta/data", config: "/srv/rta/config" };
const opts = { binary: "/opt/rta/bin/rta", roots: ["/srv/projects", "/tmp/scratch"], maxResultMiB: 16, dirs };
const env = { RTA_DATA_DIR: "/srv/rta/data", RTA_CONFIG_DIR: "/srv/rta/config" };

/** The server's entry as the client reads it from `text`. */
function served(client: Client, text: string): Record<string, unknown> {
  const doc = parseAs(client, text) as Record<string, Record<string, Record<string, unknown>>>;
  const key = client === "codex" ? "mcp_servers" : client === "vscode" ? "servers" : "mcpServers";
  return doc[key]?.rta as Record<string, unknown>;
}

describe("the registration", () => {
  test("holds the binary's path, mcp serve, --agent <client>, the roots, max-result and the dirs", () => {
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
    expect(reg.env).toEqual(env);
    expect(registration("cursor", { ...opts, agent: "ci-bot" }).args.slice(2, 4)).toEqual(["--agent", "ci-bot"]);
  });

  // One fixture per client: what is printed is the client's own format, read by that format's parser.
  for (const client of CLIENTS) {
    test(`${client}: printed in its own format, which its parser reads back`, () => {
      const text = renderRegistration(registration(client, opts));
      const entry = served(client, text);
      expect(entry.command).toBe(opts.binary);
      expect(entry.args).toEqual(registration(client, opts).args);
      expect(entry.env).toEqual(env);
      if (client === "vscode" || client === "claude-code") expect(entry.type).toBe("stdio");
      else expect(entry.type).toBeUndefined();
    });
  }

  test("every client's registration carries CODEX_HOME when it is set, resolved, for the server to keep codex's config", () => {
    for (const client of CLIENTS) {
      expect(registration(client, { ...opts, codexHome: "/srv/codex" }).env).toEqual({
        ...env,
        CODEX_HOME: "/srv/codex",
      });
      expect(registration(client, opts).env).toEqual(env);
    }
  });

  test("codex's TOML escapes what a path may hold: quotes, backslashes, tabs, newlines, escape codes, DEL", () => {
    const odd = '/tmp/a "b"\\c\td\ne\u001b[31mf\u007fg';
    const reg = registration("codex", { ...opts, binary: odd, roots: [odd] });
    const entry = served("codex", renderRegistration(reg));
    expect(entry.command).toBe(odd);
    expect((entry.args as string[]).at(-3)).toBe(odd);
  });

  test("knows where each client keeps its config; CODEX_HOME moves codex's", () => {
    const at = { home: "/h", project: "/w" };
    expect(configPath("claude", { ...at, platform: "linux" })).toBe("/h/.config/Claude/claude_desktop_config.json");
    expect(configPath("claude", { ...at, platform: "darwin" })).toBe(
      "/h/Library/Application Support/Claude/claude_desktop_config.json",
    );
    expect(configPath("vscode", at)).toBe("/w/.vscode/mcp.json");
    expect(configPath("claude-code", at)).toBe("/w/.mcp.json");
    expect(configPath("codex", at)).toBe("/h/.codex/config.toml");
    expect(configPath("codex", { ...at, codexHome: "/c" })).toBe("/c/config.toml");
  });

  test("names every file a registration goes into, for the gate to keep: each project's, CODEX_HOME's", () => {
    const inProject = (p: string) => [`${p}/.cursor/mcp.json`, `${p}/.gemini/settings.json`, `${p}/.codex/config.toml`];
    expect(registrationFiles("/h", ["/w", "/r"], "/c", "linux")).toEqual([
      "/h/.config/Claude/claude_desktop_config.json",
      "/w/.mcp.json",
      "/h/.cursor/mcp.json",
      "/w/.vscode/mcp.json",
      "/c/config.toml",
      "/h/.gemini/settings.json",
      ...inProject("/w"),
      "/r/.mcp.json",
      "/r/.vscode/mcp.json",
      ...inProject("/r"),
      // Claude Code's own servers, user and local scope
      "/h/.claude.json",
    ]);
    expect(registrationFiles(undefined, ["/w"], undefined, "linux")).toEqual([
      "/w/.mcp.json",
      "/w/.vscode/mcp.json",
      ...inProject("/w"),
    ]);
    expect(registrationFiles("h", ["/w"], undefined, "linux")).toEqual([
      "/w/.mcp.json",
      "/w/.vscode/mcp.json",
      ...inProject("/w"),
    ]);
  });
});

describe("merging", () => {
  test("JSON: keeps the other servers and settings, and replaces an earlier rta entry", () => {
    const existing = JSON.stringify({
      theme: "dark",
      mcpServers: { other: { command: "x" }, rta: { command: "old" } },
    });
    const merged = JSON.parse(mergeInto(existing, registration("gemini", opts), "f"));
    expect(merged.theme).toBe("dark");
    expect(merged.mcpServers.other).toEqual({ command: "x" });
    expect(merged.mcpServers.rta.command).toBe("/opt/rta/bin/rta");
  });

  test("JSON: a file with no servers yet, an empty object and an empty file each get one", () => {
    for (const existing of ['{\n  "theme": "dark"\n}\n', "{}", "{\n}\n", "", '{"a":1}']) {
      const merged = mergeInto(existing, registration("cursor", opts), "f");
      expect(served("cursor", merged).command).toBe(opts.binary);
    }
  });

  test("vscode: the comments and trailing commas of JSON with comments are kept, and the server replaced", () => {
    const existing = `// my servers
{
  /* inputs first */
  "inputs": [],
  "servers": {
    "other": { "type": "stdio", "command": "x" }, // keep me
    "rta": { "command": "old" },
  },
}
`;
    const merged = mergeInto(existing, registration("vscode", opts), ".vscode/mcp.json");
    expect(merged).toContain("// my servers");
    expect(merged).toContain("/* inputs first */");
    expect(merged).toContain("// keep me");
    expect(merged).not.toContain('"old"');
    const doc = Bun.JSONC.parse(merged) as { servers: Record<string, { command: string }>; inputs: unknown[] };
    expect(doc.servers.other?.command).toBe("x");
    expect(doc.servers.rta?.command).toBe(opts.binary);
    expect(doc.inputs).toEqual([]);
    // a second run is a fixed point
    expect(mergeInto(merged, registration("vscode", opts), "f")).toBe(merged);
  });

  test("JSON written on one line stays on one line", () => {
    const merged = mergeInto('{"mcpServers": {"x": {"command": "y"}}}\n', registration("cursor", opts), "f");
    expect(merged.split("\n")).toHaveLength(2);
    expect(Object.keys(JSON.parse(merged).mcpServers)).toEqual(["x", "rta"]);
  });

  test("vscode: a file with comments and no rta yet gets it added, comments kept", () => {
    const existing = '{\n  "servers": {\n    "a": { "command": "x" } // trailing note\n  }\n}\n';
    const merged = mergeInto(existing, registration("vscode", opts), "f");
    expect(merged).toContain("// trailing note");
    expect(Object.keys((Bun.JSONC.parse(merged) as { servers: object }).servers)).toEqual(["a", "rta"]);
  });

  test("a comment in a client's plain JSON, or a file that does not parse, is refused as core.config.unreadable", () => {
    for (const [client, text] of [
      ["cursor", "{not json"],
      ["claude-code", '{ // comment\n "mcpServers": {} }'],
      ["vscode", '{ "servers": { '],
      ["gemini", "[1, 2]"],
      ["claude", '{"mcpServers": []}'],
      ["codex", "[mcp_servers\ncommand = 1"],
    ] as [Client, string][]) {
      let caught: unknown;
      try {
        mergeInto(text, registration(client, opts), "/h/file");
      } catch (err) {
        caught = err;
      }
      expect((caught as { code?: string }).code).toBe("core.config.unreadable");
      expect((caught as Error).message).toContain("/h/file");
    }
  });

  test("a JSON file nested past JSON_EDIT_DEPTH_LIMIT is refused as unreadable, not as a file rta may not write", () => {
    const deep = `{"a": ${"[".repeat(JSON_EDIT_DEPTH_LIMIT)}${"]".repeat(JSON_EDIT_DEPTH_LIMIT)}}`;
    expect(() => mergeInto(deep, registration("cursor", opts), "/h/file")).toThrow(
      `/h/file is not JSON that rta can read (nested deeper than ${JSON_EDIT_DEPTH_LIMIT} levels), so rta will not write into it`,
    );
    const deepest = `{"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    expect(() => mergeInto(deepest, registration("cursor", opts), "/h/file")).toThrow(/nested deeper than/);
    const shallow = `{"a": ${"[".repeat(JSON_EDIT_DEPTH_LIMIT - 1)}${"]".repeat(JSON_EDIT_DEPTH_LIMIT - 1)}}`;
    expect(JSON.parse(mergeInto(shallow, registration("cursor", opts), "/h/file")).mcpServers.rta).toBeDefined();
  });

  test("codex: an earlier [mcp_servers.rta] and its sub-tables are replaced in place; comments and tables kept", () => {
    const existing = `# my codex config
model = "o3"

[mcp_servers.other]
command = "x" # inline note

[mcp_servers.rta]
command = "old"

[mcp_servers.rta.env]
A = "1"

# the profile for work
[profiles.x]
model = "y"
`;
    const merged = mergeInto(existing, registration("codex", opts), "f");
    const parsed = Bun.TOML.parse(merged) as Record<string, Record<string, unknown>>;
    expect(parsed.model as unknown).toBe("o3");
    expect(parsed.mcp_servers?.other).toEqual({ command: "x" });
    expect(parsed.mcp_servers?.rta).toEqual({ command: opts.binary, args: registration("codex", opts).args, env });
    expect(parsed.profiles).toEqual({ x: { model: "y" } });
    for (const kept of ["# my codex config", "# inline note", "# the profile for work"]) expect(merged).toContain(kept);
    expect(merged.indexOf("[mcp_servers.rta]")).toBeLessThan(merged.indexOf("[profiles.x]"));
    expect(mergeInto(merged, registration("codex", opts), "f")).toBe(merged);
  });

  test('codex: a quoted header, [mcp_servers."rta"], is the same table and is replaced', () => {
    const merged = mergeInto('[mcp_servers."rta"]\ncommand = "old"\n', registration("codex", opts), "f");
    expect(served("codex", merged).command).toBe(opts.binary);
  });

  test("codex: an rta entry written as an inline table is refused, not doubled", () => {
    expect(() => mergeInto('mcp_servers = { rta = { command = "old" } }\n', registration("codex", opts), "f")).toThrow(
      /cannot replace/,
    );
  });

  test("writes atomically after a backup of the old file, keeping its mode, and through a link", () => {
    const dir = tempDir();
    const file = join(dir, "sub", "mcp.json");
    expect(writeRegistration(registration("cursor", opts), file).backup).toBeUndefined();
    writeFileSync(file, JSON.stringify({ mcpServers: { keep: { command: "k" } } }), { mode: 0o644 });
    const w = writeRegistration(registration("cursor", opts), file, new Date("2026-11-30T10:00:00Z"));
    expect(w.backup).toBe(`${file}.bak-2026-11-30T10-00-00-000Z`);
    expect(existsSync(w.backup as string)).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["keep", "rta"]);
    expect(readdirSync(join(dir, "sub")).filter((f) => f.includes("rta-tmp"))).toEqual([]);
    const dotfiles = join(dir, "dotfiles");
    mkdirSync(dotfiles);
    writeFileSync(join(dotfiles, "config.toml"), 'model = "o3"\n');
    symlinkSync(join(dotfiles, "config.toml"), join(dir, "config.toml"));
    writeRegistration(registration("codex", opts), join(dir, "config.toml"));
    expect(served("codex", readFileSync(join(dotfiles, "config.toml"), "utf8")).command).toBe(opts.binary);
  });
});

describe("appending to stdout's file", () => {
  test("codex: appended to a file of other tables, or twice, the file still parses", () => {
    const reg = registration("codex", opts);
    const rendered = renderRegistration(reg);
    let file = '# mine\nmodel = "o3"\n[profiles.x]\nmodel = "y"';
    file += appendable(file, reg, rendered, "config.toml");
    expect(served("codex", file).command).toBe(opts.binary);
    expect(file).toContain("# mine");
    expect(() => appendable(file, reg, rendered, "config.toml")).toThrow(/already registers rta/);
    expect(() => appendable("[broken", reg, rendered, "config.toml")).toThrow(/not TOML/);
  });

  test("JSON: appended to an empty file it is the file; to one that holds JSON it is refused", () => {
    const reg = registration("claude-code", opts);
    expect(appendable("", reg, renderRegistration(reg), ".mcp.json")).toBe(renderRegistration(reg));
    expect(() => appendable("{}\n", reg, renderRegistration(reg), ".mcp.json")).toThrow(/a second JSON object/);
  });
});
