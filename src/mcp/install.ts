/**
 * `rta mcp install <client>`: the registration an MCP client needs to launch
 * `rta mcp serve`. The client launches the server, so a flag that is not in
 * this line is not set: the roots, the agent's name and --max-result are
 * written into it, and so are rta's data and config dirs, resolved, since a
 * client may start its servers with a bare environment. Each client's own
 * format, and where it keeps it, follow that client's documentation:
 *
 * - claude (Claude Desktop): `mcpServers.<name>` = { command, args, env } in
 *   claude_desktop_config.json (modelcontextprotocol.io, "Connect to local MCP servers").
 * - claude-code: project scope, `.mcp.json` in the project's root, `mcpServers.<name>` =
 *   { type: "stdio", command, args, env } (Claude Code docs, "Connect Claude Code to tools via MCP").
 * - cursor: `~/.cursor/mcp.json`, `mcpServers.<name>` = { command, args, env } (cursor.com/docs/mcp).
 * - vscode: `.vscode/mcp.json` in the workspace, JSON with comments, `servers.<name>` =
 *   { type: "stdio", command, args, env } (code.visualstudio.com, "MCP configuration reference").
 * - codex: `$CODEX_HOME/config.toml` (default `~/.codex`), a `[mcp_servers.<name>]` table with
 *   command, args and env (developers.openai.com/codex/mcp, and codex's docs/config.md).
 * - gemini: `~/.gemini/settings.json`, `mcpServers.<name>` = { command, args, env }
 *   (gemini-cli docs/tools/mcp-server.md).
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { tomlKey, tomlString } from "./tomlEdit.ts";

export const CLIENTS = ["claude", "claude-code", "cursor", "vscode", "codex", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];

/** The clients whose registration lives in a project, not in the home. */
export const PROJECT_CLIENTS: readonly Client[] = ["claude-code", "vscode"];

/** The key the server is registered under in the client's config. */
export const SERVER_KEY = "rta";

export interface Registration {
  client: Client;
  command: string;
  args: string[];
  /**
   * RTA_DATA_DIR and RTA_CONFIG_DIR, resolved: the server must use the stores the person's grants are in; and
   * RTA_KV_IDENTITY when the person asked for it with --kv
   */
  env: Record<string, string>;
}

export interface InstallOptions {
  binary: string;
  roots: string[];
  agent?: string;
  maxResultMiB?: number;
  /** rta's data and config dirs as the person's shell resolves them */
  dirs: { data: string; config: string };
  /** CODEX_HOME as the person's shell has it, when set: the registration carries it to the server */
  codexHome?: string;
  /** the kv identity file, carried as RTA_KV_IDENTITY only when the person asked for it (`--kv`) */
  kvIdentity?: string;
}

/** Where the clients' files are: the home, the project (for claude-code and vscode), CODEX_HOME, the platform. */
export interface Places {
  home: string;
  project: string;
  codexHome?: string;
  platform?: NodeJS.Platform;
}

/** Whether `name` is a client rta can register with (CLIENTS); any other name is not. */
export function isClient(name: string): name is Client {
  return (CLIENTS as readonly string[]).includes(name);
}

/**
 * The command and arguments a client runs to start this server, with rta's
 * data and config dirs, and the CODEX_HOME it was installed under, when one
 * is set: the server keeps codex's config.toml from agents only where it
 * knows it is (registrationFiles), and a client starts its servers without
 * the person's CODEX_HOME (codex too), so one under a root would otherwise be
 * an agent's to rewrite, with the commands codex runs next. RTA_KV_IDENTITY
 * only when `kvIdentity` is given. Refuses nothing.
 */
export function registration(client: Client, options: InstallOptions): Registration {
  const args = ["mcp", "serve", "--agent", options.agent ?? client];
  for (const root of options.roots) args.push("--root", resolve(root));
  if (options.maxResultMiB !== undefined) args.push("--max-result", String(options.maxResultMiB));
  const env: Record<string, string> = {
    RTA_DATA_DIR: resolve(options.dirs.data),
    RTA_CONFIG_DIR: resolve(options.dirs.config),
  };
  if (options.codexHome) env.CODEX_HOME = resolve(options.codexHome);
  if (options.kvIdentity) env.RTA_KV_IDENTITY = resolve(options.kvIdentity);
  return { client, command: options.binary, args, env };
}

/** Where each client keeps the file its servers are registered in. Refuses nothing. */
export function configPath(client: Client, places: Places): string {
  const { home, project } = places;
  switch (client) {
    case "claude":
      return (places.platform ?? process.platform) === "darwin"
        ? join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
        : join(home, ".config", "Claude", "claude_desktop_config.json");
    case "claude-code":
      return join(project, ".mcp.json");
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "vscode":
      return join(project, ".vscode", "mcp.json");
    case "codex":
      return join(places.codexHome ? resolve(places.codexHome) : join(home, ".codex"), "config.toml");
    case "gemini":
      return join(home, ".gemini", "settings.json");
  }
}

/**
 * The files in a project from which a client also reads the servers it
 * starts, though rta registers itself in the home for that client: Cursor's
 * `.cursor/mcp.json`, Gemini CLI's `.gemini/settings.json`, Codex's
 * `.codex/config.toml` (in a project it trusts), each after its client's
 * documentation.
 */
const PROJECT_SERVER_FILES = [
  [".cursor", "mcp.json"],
  [".gemini", "settings.json"],
  [".codex", "config.toml"],
] as const;

/**
 * The files in the home from which a client reads the servers it starts, though rta registers itself elsewhere for
 * that client: Claude Code's `~/.claude.json`, which holds its user-scope servers and each project's local-scope ones
 * (`claude mcp add` writes there by default).
 */
const HOME_SERVER_FILES = [[".claude.json"]] as const;

/**
 * Every file a registration is written into, for this home, CODEX_HOME and
 * these project directories (the server's own and its roots), and every
 * file in those projects or the home a client reads its servers from: what an MCP client
 * runs when it next starts. The path gate keeps them as rta's own places, as
 * it keeps rta's executable: an agent that could write one would choose the
 * command the client runs as the person, or the roots, name and dirs the next
 * rta runs with. Refuses nothing; a home that is not an absolute path gives
 * only the projects' files.
 */
export function registrationFiles(
  home: string | undefined,
  projects: string[],
  codexHome?: string,
  platform = process.platform,
): string[] {
  const files = new Set<string>();
  for (const project of projects.length > 0 ? projects : [""]) {
    for (const client of CLIENTS) {
      // a home that is no absolute path gives relative paths, which name no place
      const file = configPath(client, { home: home ?? "", project, platform, ...(codexHome ? { codexHome } : {}) });
      if (isAbsolute(file)) files.add(file);
    }
    for (const parts of PROJECT_SERVER_FILES) {
      const file = join(project, ...parts);
      if (isAbsolute(file)) files.add(file);
    }
  }
  if (home !== undefined && isAbsolute(home)) for (const parts of HOME_SERVER_FILES) files.add(join(home, ...parts));
  return [...files];
}

/** The default place for the home's clients: the process's home. */
export function defaultHome(env: Record<string, string | undefined>): string {
  return env.HOME || homedir();
}

/** The key a client's servers are under in its file, as parsed: mcp_servers for codex. */
export function containerKey(client: Client): string {
  return client === "codex" ? "mcp_servers" : client === "vscode" ? "servers" : "mcpServers";
}

/** The server's entry as the client's file holds it. */
export function entry(reg: Registration): Record<string, unknown> {
  const base = { command: reg.command, args: reg.args, env: reg.env };
  return reg.client === "vscode" || reg.client === "claude-code" ? { type: "stdio", ...base } : base;
}

/** The registration as the text it takes in that client's file, on its own: TOML for codex, JSON for the rest. */
export function renderRegistration(reg: Registration): string {
  if (reg.client === "codex") return codexTable(reg);
  return `${JSON.stringify({ [containerKey(reg.client)]: { [SERVER_KEY]: entry(reg) } }, null, 2)}\n`;
}

/** The `[mcp_servers.rta]` table, its env inline. */
export function codexTable(reg: Registration): string {
  const env = Object.entries(reg.env)
    .map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`)
    .join(", ");
  return `[mcp_servers.${SERVER_KEY}]\ncommand = ${tomlString(reg.command)}\nargs = [${reg.args.map(tomlString).join(", ")}]\nenv = { ${env} }\n`;
}
