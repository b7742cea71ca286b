/**
 * The `[upstreams.NAME]` section of config.toml: MCP servers rta did not
 * write, offered behind its gate (src/upstreams/).
 *
 *   [upstreams.files]
 *   command = ["node", "/opt/mcp/filesystem/index.js", "/srv"]   # stdio
 *   env = { LOG_LEVEL = "warn" }                                 # its environment, beside PATH, LANG and HOME
 *   [upstreams.vendor]
 *   url = "https://mcp.example.com/mcp"                          # Streamable HTTP
 *   headers = { Authorization = "Bearer ..." }
 *   [upstreams.vendor.tools.delete_all]
 *   safety = "destructive"                                       # stricter than its annotations say
 *   [upstreams.vendor.tools.peek]
 *   safety = "read"
 *   trust = true                                                 # laxer: only with trust
 *
 * An env or header value is the operator's secret: it is handed to the
 * upstream and to nothing else. A bad entry is a problem of its own, said by
 * `rta config check` and `rta doctor`, and leaves the rest of the config (and
 * the other upstreams) standing.
 */
import type { Safety } from "./capability.ts";

/** How rta reaches one upstream. */
export type UpstreamTransport =
  | { kind: "stdio"; command: string[]; env: Record<string, string> }
  | { kind: "http"; url: string; headers: Record<string, string> };

/** What config says of one of an upstream's tools. */
export interface UpstreamToolSetting {
  safety?: Safety;
  /** lets `safety` be laxer than the tool's annotations */
  trust: boolean;
}

export interface UpstreamConfig {
  name: string;
  transport: UpstreamTransport;
  /** by the upstream's own tool name */
  tools: Record<string, UpstreamToolSetting>;
}

/** rta's rule for an area's name, which an upstream's is: its tools are `<name>_<tool>`. */
export const UPSTREAM_NAME = /^[a-z][a-z0-9]{0,31}$/;

const SAFETIES: readonly Safety[] = ["read", "write", "destructive"];
const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStringMap = (v: unknown): v is Record<string, string> =>
  isTable(v) && Object.values(v).every((s) => typeof s === "string");
/** A header name as HTTP spells one (a token), and a value with no line break or other control character. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\p{Cc}]*$/u;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads `[upstreams]`: each entry that reads is returned; each that does not
 * is told to `problem` (where, why) and left out. Refuses nothing itself.
 */
export function parseUpstreams(
  value: unknown,
  problem: (where: string, why: string) => void,
): Record<string, UpstreamConfig> {
  const out: Record<string, UpstreamConfig> = {};
  if (!isTable(value)) {
    problem("[upstreams]", "must be a table of named upstream servers");
    return out;
  }
  for (const [name, entry] of Object.entries(value)) {
    const where = `[upstreams.${name}]`;
    if (!UPSTREAM_NAME.test(name)) {
      problem(where, "is not a name: lowercase letters and digits, starting with a letter");
      continue;
    }
    const read = parseOne(name, entry, (why) => problem(where, why));
    if (read) out[name] = read;
  }
  return out;
}

function parseOne(name: string, entry: unknown, no: (why: string) => void): UpstreamConfig | undefined {
  if (!isTable(entry)) return void no('must be a table with command = [...] or url = "..."');
  const unknown = Object.keys(entry).find((k) => !["command", "env", "url", "headers", "tools"].includes(k));
  if (unknown !== undefined)
    return void no(`has no setting ${JSON.stringify(unknown)} (command, env, url, headers and tools are known)`);
  if ((entry.command === undefined) === (entry.url === undefined))
    return void no('needs either command = [...] (stdio) or url = "http://..." (Streamable HTTP), not both');
  const tools = parseTools(entry.tools, no);
  if (tools === undefined) return undefined;
  if (entry.command !== undefined) {
    const command = entry.command;
    if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === "string" && c !== ""))
      return void no("command must be a list of words, the program first");
    if (entry.headers !== undefined) return void no("headers are for url; a command takes env");
    const env = entry.env ?? {};
    if (!isStringMap(env) || !Object.keys(env).every((k) => ENV_NAME.test(k)))
      return void no("env must map variable names to text values");
    return { name, transport: { kind: "stdio", command: command as string[], env }, tools };
  }
  if (typeof entry.url !== "string") return void no("url must be text");
  let url: URL;
  try {
    url = new URL(entry.url);
  } catch {
    return void no("url is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return void no("url must be http:// or https://");
  if (url.username !== "" || url.password !== "") return void no("url must not hold credentials: put them in headers");
  if (entry.env !== undefined) return void no("env is for command; a url takes headers");
  const headers = entry.headers ?? {};
  if (!isStringMap(headers) || !Object.entries(headers).every(([k, v]) => HEADER_NAME.test(k) && HEADER_VALUE.test(v)))
    return void no("headers must map header names to values on one line");
  return { name, transport: { kind: "http", url: url.href, headers }, tools };
}

function parseTools(tools: unknown, no: (why: string) => void): Record<string, UpstreamToolSetting> | undefined {
  if (tools === undefined) return {};
  if (!isTable(tools)) return void no("tools must be a table of the upstream's tools");
  const out: Record<string, UpstreamToolSetting> = {};
  for (const [tool, setting] of Object.entries(tools)) {
    if (!isTable(setting)) return void no(`tools.${tool} must be a table (safety, trust)`);
    const extra = Object.keys(setting).find((k) => k !== "safety" && k !== "trust");
    if (extra !== undefined) return void no(`tools.${tool} has no setting ${JSON.stringify(extra)} (safety, trust)`);
    if (setting.safety !== undefined && !SAFETIES.includes(setting.safety as Safety))
      return void no(`tools.${tool} safety must be read, write or destructive`);
    if (setting.trust !== undefined && typeof setting.trust !== "boolean")
      return void no(`tools.${tool} trust must be true or false`);
    out[tool] = {
      ...(setting.safety !== undefined ? { safety: setting.safety as Safety } : {}),
      trust: setting.trust === true,
    };
  }
  return out;
}

/** The shortest env or header value masked as a secret. */
export const SECRET_MIN = 8;

/** The operator's secrets an upstream is handed (its env and header values), for masking; refuses nothing. */
export function upstreamSecrets(u: UpstreamConfig): string[] {
  const values = u.transport.kind === "stdio" ? Object.values(u.transport.env) : Object.values(u.transport.headers);
  // `Bearer <token>`: the token alone is the secret too, wherever it is echoed without its scheme
  const parts = values.flatMap((v) => [v, ...v.split(/\s+/).slice(1)]);
  // a value too short to be a secret (LOG_LEVEL = "warn") would mask common words in every answer and guard nothing
  return [...new Set(parts.filter((v) => v.length >= SECRET_MIN))].sort((a, b) => b.length - a.length);
}
