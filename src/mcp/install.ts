/**
 * `rta mcp install <client>`: the registration an MCP client needs to launch
 * `rta mcp serve`. The client launches the server, so a flag that is not in
 * this line is not set: the roots, the agent's name and --max-result are
 * written into it. Printing is the default; writing merges into the client's
 * own config file, keeping its other servers, after a backup.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { RtaError } from "../core/errors.ts";

export const CLIENTS = ["claude", "claude-code", "cursor", "vscode", "codex", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];

/** The key the server is registered under in the client's config. */
export const SERVER_KEY = "rta";

export interface Registration {
  client: Client;
  command: string;
  args: string[];
  /** RTA_DATA_DIR and RTA_CONFIG_DIR when the person set them: the server must use the stores their grants are in */
  env?: Record<string, string>;
}

export interface InstallOptions {
  binary: string;
  roots: string[];
  agent?: string;
  maxResultMiB?: number;
  env?: Record<string, string | undefined>;
}

/** Whether `name` is a client rta can register with (CLIENTS); any other name is not. */
export function isClient(name: string): name is Client {
  return (CLIENTS as readonly string[]).includes(name);
}

/** The command and arguments a client runs to start this server, with the data and config dirs the person set. Refuses nothing. */
export function registration(client: Client, options: InstallOptions): Registration {
  const args = ["mcp", "serve", "--agent", options.agent ?? client];
  for (const root of options.roots) args.push("--root", resolve(root));
  if (options.maxResultMiB !== undefined) args.push("--max-result", String(options.maxResultMiB));
  const env = Object.fromEntries(
    ["RTA_DATA_DIR", "RTA_CONFIG_DIR"].flatMap((k) => (options.env?.[k] ? [[k, resolve(options.env[k])]] : [])),
  );
  return { client, command: options.binary, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
}

/** Where each client keeps the file its servers are registered in. */
export function configPath(client: Client, home = homedir(), cwd = process.cwd(), platform = process.platform): string {
  switch (client) {
    case "claude":
      return platform === "darwin"
        ? join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
        : join(home, ".config", "Claude", "claude_desktop_config.json");
    case "claude-code":
      return join(cwd, ".mcp.json");
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "vscode":
      return join(cwd, ".vscode", "mcp.json");
    case "codex":
      return join(home, ".codex", "config.toml");
    case "gemini":
      return join(home, ".gemini", "settings.json");
  }
}

/**
 * Every file a registration is written into, for this home and this directory:
 * what an MCP client runs when it next starts. The path gate keeps them as
 * rta's own places, as it keeps rta's executable: an agent that could write
 * one would choose the command the client runs as the person, or the roots,
 * name and dirs the next rta runs with. Refuses nothing; a home that is not
 * an absolute path gives only the directory's own files.
 */
export function registrationFiles(home: string | undefined, cwd: string, platform = process.platform): string[] {
  // a home that is no absolute path gives relative paths, which name no place
  return CLIENTS.map((client) => configPath(client, home ?? "", cwd, platform)).filter((file) => isAbsolute(file));
}

/** The registration as the text it takes in that client's file, on its own. */
export function renderRegistration(reg: Registration): string {
  if (reg.client === "codex") return codexTable(reg);
  return `${JSON.stringify({ [containerKey(reg.client)]: { [SERVER_KEY]: entry(reg) } }, null, 2)}\n`;
}

function containerKey(client: Client): string {
  return client === "vscode" ? "servers" : "mcpServers";
}

function entry(reg: Registration): Record<string, unknown> {
  const base = { command: reg.command, args: reg.args, ...(reg.env ? { env: reg.env } : {}) };
  return reg.client === "vscode" || reg.client === "claude-code" ? { type: "stdio", ...base } : base;
}

function codexTable(reg: Registration): string {
  const str = (s: string) => JSON.stringify(s); // a TOML basic string is a JSON string for these characters
  const env = reg.env
    ? `env = { ${Object.entries(reg.env)
        .map(([k, v]) => `${k} = ${str(v)}`)
        .join(", ")} }\n`
    : "";
  return `[mcp_servers.${SERVER_KEY}]\ncommand = ${str(reg.command)}\nargs = [${reg.args.map(str).join(", ")}]\n${env}`;
}

/**
 * The client's file with this registration merged in: other servers and other
 * settings are kept, and an earlier rta entry is replaced. Refuses a file it
 * cannot read as its format, rather than overwrite what it does not understand.
 */
export function mergeInto(existing: string | undefined, reg: Registration, file: string): string {
  if (reg.client === "codex") return mergeToml(existing ?? "", reg);
  let doc: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(existing);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      doc = parsed as Record<string, unknown>;
    } catch {
      throw new RtaError(
        "core.config.unreadable",
        `${file} is not a JSON object, so rta will not write into it`,
        "fix or move the file, or run without --write and paste the registration in yourself",
      );
    }
  }
  const key = containerKey(reg.client);
  const servers = typeof doc[key] === "object" && doc[key] !== null ? (doc[key] as Record<string, unknown>) : {};
  doc[key] = { ...servers, [SERVER_KEY]: entry(reg) };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Drops an earlier `[mcp_servers.rta]` table (and its sub-tables) and appends the new one. */
function mergeToml(existing: string, reg: Registration): string {
  const lines = existing.split("\n");
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    const header = line.match(/^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/);
    if (header) {
      const name = (header[1] as string).replaceAll('"', "");
      skipping = name === `mcp_servers.${SERVER_KEY}` || name.startsWith(`mcp_servers.${SERVER_KEY}.`);
    }
    if (!skipping) kept.push(line);
  }
  const body = kept.join("\n").replace(/\n+$/, "");
  return `${body}${body ? "\n\n" : ""}${codexTable(reg)}`;
}

export interface Written {
  file: string;
  backup?: string;
}

/** Writes the merged file atomically (temp file, then rename), after copying the old one aside. */
export function writeRegistration(reg: Registration, file: string, now = new Date()): Written {
  const existing = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const merged = mergeInto(existing, reg, file);
  mkdirSync(dirname(file), { recursive: true });
  const out: Written = { file };
  if (existing !== undefined) {
    out.backup = `${file}.bak-${now.toISOString().replace(/[:.]/g, "-")}`;
    copyFileSync(file, out.backup);
  }
  const temp = `${file}.rta-tmp-${process.pid}`;
  writeFileSync(temp, merged, { mode: 0o600 });
  renameSync(temp, file);
  return out;
}
