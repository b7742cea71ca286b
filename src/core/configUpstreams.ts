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
 *   select = ["resource:doc://readme", "template:doc://items/{id}", "prompt:review"]
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

/** One of an upstream's resources, URI templates or prompts the operator selected to offer (`select`). */
export interface UpstreamSelection {
  kind: "resource" | "template" | "prompt";
  /** the resource's URI, the template's URI template, or the prompt's name, as the upstream lists it */
  name: string;
}

export interface UpstreamConfig {
  name: string;
  transport: UpstreamTransport;
  /** by the upstream's own tool name */
  tools: Record<string, UpstreamToolSetting>;
  /** what of its resources, templates and prompts is offered; nothing unselected ever is */
  select?: UpstreamSelection[];
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
 * Variables that make a program load code of their naming: the dynamic
 * loader's (LD_*, DYLD_*, GCONV_PATH), and node's, Python's, Ruby's, Perl's,
 * a shell's and Java's. Set in env, an approved upstream's executable (whose
 * digest the approval pins) would run code no one approved. Refused whatever
 * the entry says: a program that needs one is started by a script of the
 * operator's own, which is then the executable pinned.
 */
const LOADS_CODE =
  /^(?:LD_\w*|DYLD_\w*|GCONV_PATH|NODE_OPTIONS|NODE_PATH|BUN_OPTIONS|BUN_INSPECT\w*|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|RUBYOPT|RUBYLIB|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|BASH_ENV|ENV|BASH_FUNC_\w*|SHELLOPTS|PS4|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH)$/;

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
  const unknown = Object.keys(entry).find((k) => !["command", "env", "url", "headers", "tools", "select"].includes(k));
  if (unknown !== undefined)
    return void no(
      `has no setting ${JSON.stringify(unknown)} (command, env, url, headers, tools and select are known)`,
    );
  if ((entry.command === undefined) === (entry.url === undefined))
    return void no('needs either command = [...] (stdio) or url = "http://..." (Streamable HTTP), not both');
  const tools = parseTools(entry.tools, no);
  if (tools === undefined) return undefined;
  const select = parseSelect(entry.select, no);
  if (select === undefined) return undefined;
  if (entry.command !== undefined) {
    const command = entry.command;
    if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === "string" && c !== ""))
      return void no("command must be a list of words, the program first");
    if (entry.headers !== undefined) return void no("headers are for url; a command takes env");
    const env = entry.env ?? {};
    if (!isStringMap(env) || !Object.keys(env).every((k) => ENV_NAME.test(k)))
      return void no("env must map variable names to text values");
    const loads = Object.keys(env).find((k) => LOADS_CODE.test(k.toUpperCase()));
    if (loads !== undefined)
      return void no(
        `env must not set ${loads}: it makes the program load code its approval does not pin; start it by a script of your own that sets it (its executable is then the one pinned)`,
      );
    return { name, transport: { kind: "stdio", command: command as string[], env }, tools, select };
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
  // an approval binds the URL, not the headers (a rotated token keeps it): a Host header would send the same URL to
  // another server behind the same address, approved as the first
  if (Object.keys(headers).some((k) => k.toLowerCase() === "host"))
    return void no("headers must not name Host: the url names the server");
  return { name, transport: { kind: "http", url: url.href, headers }, tools, select };
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

const KINDS: readonly UpstreamSelection["kind"][] = ["resource", "template", "prompt"];
/** A template's variable: level 1 of RFC 6570 only (`{id}`), so an expansion can never reach past its template. */
const TEMPLATE_PART = /\{([^}]*)\}/g;
const VARIABLE = /^[A-Za-z0-9_]{1,64}$/;

/** Why one `select` entry does not read (`kind:name`); undefined when it does. */
function selectionFault(kind: string, name: string): string | undefined {
  if (!(KINDS as readonly string[]).includes(kind))
    return 'must be "resource:URI", "template:URI-TEMPLATE" or "prompt:NAME"';
  if (name === "" || name.length > 1024 || /[\p{Cc}\s]/u.test(name))
    return "must name it after the kind, on one line, with no space or control character";
  if (kind !== "template")
    return /[{}]/.test(name) ? `a ${kind} takes no {variable}: select it as template:` : undefined;
  const vars = [...name.matchAll(TEMPLATE_PART)].map((m) => m[1] as string);
  if (vars.length === 0) return "a template needs a {variable}; a fixed URI is selected as resource:";
  if (!vars.every((v) => VARIABLE.test(v)) || name.replace(TEMPLATE_PART, "").match(/[{}]/))
    return "a template's variables are written {name} (letters, digits, _): rta expands no other form";
  if (name.includes("}{"))
    return "a template's variables cannot be next to each other: nothing would say where one ends";
  if (new Set(vars).size !== vars.length) return "a template names a variable twice";
  return undefined;
}

function parseSelect(select: unknown, no: (why: string) => void): UpstreamSelection[] | undefined {
  if (select === undefined) return [];
  if (!Array.isArray(select) || !select.every((s) => typeof s === "string"))
    return void no('select must be a list such as ["resource:doc://readme", "prompt:review"]');
  const out: UpstreamSelection[] = [];
  const seen = new Set<string>();
  for (const entry of select as string[]) {
    const at = entry.indexOf(":");
    const kind = at < 0 ? "" : entry.slice(0, at);
    const name = at < 0 ? "" : entry.slice(at + 1);
    const fault = selectionFault(kind, name);
    if (fault !== undefined) return void no(`select ${JSON.stringify(entry)} ${fault}`);
    if (seen.has(entry)) return void no(`select names ${JSON.stringify(entry)} twice`);
    seen.add(entry);
    out.push({ kind: kind as UpstreamSelection["kind"], name });
  }
  return out;
}

/** `kind:name`, as config's `select` writes a selection and an approval keeps it. */
export function selectionKey(s: UpstreamSelection): string {
  return `${s.kind}:${s.name}`;
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
