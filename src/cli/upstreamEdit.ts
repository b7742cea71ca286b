/**
 * `rta upstream add NAME -- CMD ARGS…`, `rta upstream add NAME --url URL
 * [--header 'K: V']` and `rta upstream remove NAME`: the `[upstreams.NAME]`
 * table written into (or taken out of) config.toml with every other byte
 * kept, checked by the same parser config uses before it is written, and
 * written whole. A header value is a secret kept in config.toml: the file is
 * then made 0600. A new upstream is in quarantine until approved; removing one
 * forgets its approval too.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE } from "../core/config.ts";
import { parseUpstreams, UPSTREAM_NAME } from "../core/configUpstreams.ts";
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { replaceTable, tomlKey, tomlString } from "../mcp/tomlEdit.ts";
import { updateApprovals } from "../upstreams/approval.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm } from "./io.ts";
import { configuredUpstreams, namedUpstream } from "./upstreamApprove.ts";

function invalid(message: string, hint: string): RtaError {
  return new RtaError("core.input.invalid", message, hint);
}

/** The table as TOML text; refuses a header not written `K: V` (core.input.invalid). */
function tableOf(name: string, command: string[], opts: { url?: string; header?: string[] }): string {
  const lines = [`[upstreams.${name}]`];
  if (opts.url !== undefined) {
    lines.push(`url = ${tomlString(opts.url)}`);
    const headers = (opts.header ?? []).map((h) => {
      const at = h.indexOf(":");
      if (at <= 0)
        throw invalid(
          `the header ${JSON.stringify(h.slice(0, 40))} is not written 'Name: value'`,
          "give --header 'Authorization: Bearer …'",
        );
      return `${tomlKey(h.slice(0, at).trim())} = ${tomlString(h.slice(at + 1).trim())}`;
    });
    if (headers.length > 0) lines.push(`headers = { ${headers.join(", ")} }`);
  } else lines.push(`command = [${command.map(tomlString).join(", ")}]`);
  return `${lines.join("\n")}\n`;
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw new RtaError(
      "core.config.unreadable",
      `config.toml cannot be read: ${(err as NodeJS.ErrnoException).code}`,
      "check its mode and owner",
    );
  }
}

/** Writes `text` whole over `file`, keeping its mode (0600 when `secret`); throws what the system says. */
function writeWhole(file: string, text: string, secret: boolean): void {
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // a new file
  }
  if (secret) mode &= 0o600;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}

/**
 * Adds `[upstreams.NAME]` to config.toml; refuses a name taken (upstream.exists),
 * neither or both of a command and --url, and an entry config would not take
 * (core.input.invalid), before anything is written.
 */
export function add(
  cli: Cli,
  name: string,
  command: string[],
  opts: { url?: string; header?: string[]; json?: boolean },
): number {
  const { io } = cli;
  // the name is written into a table's header as it is: only a name of the rule may be
  if (!UPSTREAM_NAME.test(name))
    throw invalid(
      `${JSON.stringify(name.slice(0, 40))} is not an upstream's name`,
      "give lowercase letters and digits, starting with a letter, at most 32",
    );
  if ((opts.url === undefined) === (command.length === 0))
    throw invalid(
      "an upstream is either a command or a --url",
      "give `rta upstream add NAME -- CMD ARGS…` or `rta upstream add NAME --url URL`",
    );
  if (opts.header !== undefined && opts.url === undefined)
    throw invalid("--header is for an upstream reached by --url", "give the command's environment in config.toml");
  if (configuredUpstreams(cli)[name] !== undefined)
    throw new RtaError(
      "upstream.exists",
      `config.toml names an upstream ${name} already`,
      `\`rta upstream remove ${name}\` first`,
    );
  const table = tableOf(name, command, opts);
  const problems: string[] = [];
  parseUpstreams((Bun.TOML.parse(table) as { upstreams?: unknown }).upstreams, (where, why) =>
    problems.push(`${where} ${why}`),
  );
  if (problems.length > 0) throw invalid(problems[0] as string, "see docs/upstreams.md for what an entry may hold");
  const dir = dirs(io.env).config;
  const file = join(dir, CONFIG_FILE);
  const existing = readText(file);
  const text = replaceTable(existing, ["upstreams", name], table);
  try {
    Bun.TOML.parse(text);
  } catch {
    throw new RtaError(
      "core.config.invalid",
      "config.toml does not read as TOML now: mend it first",
      "`rta config check` says where",
    );
  }
  const secret = (opts.header ?? []).length > 0;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeWhole(file, text, secret);
  if (secret) io.err("rta: warning: the header's value is kept in config.toml as it is; the file is now mode 0600\n");
  if (outputForm(io, opts.json) === "json") io.out(jsonText(io, { upstream: name, added: true, state: "quarantined" }));
  else
    io.out(
      `added upstream ${name}: its tools are withheld from agents until a person runs \`rta upstream approve ${name}\`\n`,
    );
  return Exit.ok;
}

/** Takes `[upstreams.NAME]` out of config.toml and forgets its approval; refuses a name config does not give (upstream.notfound). */
export function remove(cli: Cli, name: string, opts: { json?: boolean }): number {
  const { io } = cli;
  namedUpstream(cli, name);
  const d = dirs(io.env);
  const file = join(d.config, CONFIG_FILE);
  // the table is replaced by a line of its own, then that line is taken out, with the blank line it would double
  const mark = "\u0000rta: removed\u0000";
  const lines = replaceTable(readText(file), ["upstreams", name], mark).split("\n");
  const at = lines.indexOf(mark);
  const doubled = at > 0 && lines[at - 1]?.trim() === "" && (lines[at + 1] ?? "").trim() === "";
  lines.splice(at, doubled ? 2 : 1);
  const text = lines.join("\n");
  // a table rta cannot take out (an inline one, a dotted key) is still there: said, and nothing is written
  const left = (Bun.TOML.parse(text) as { upstreams?: Record<string, unknown> }).upstreams;
  if (left !== undefined && Object.hasOwn(left, name))
    throw new RtaError(
      "core.config.invalid",
      `config.toml gives the upstream ${name} in a form rta does not take out`,
      `take it out of config.toml by hand (\`rta config path\`), then run \`rta upstream remove ${name}\` again`,
    );
  writeWhole(file, text, false);
  updateApprovals(d.data, (all) => {
    delete all[name];
  });
  if (outputForm(io, opts.json) === "json") io.out(jsonText(io, { upstream: name, removed: true }));
  else io.out(`removed upstream ${name} and its approval; a running server offers its tools until it starts again\n`);
  return Exit.ok;
}
