/**
 * `rta pkg`: install, list, remove and verify plugins. It parses what was
 * typed and renders; the work and its refusals are src/plugins/packages.ts's.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../capabilities/builtinCatalogue.ts";
import { byCodePoint, namesTaken } from "../core/catalogue.ts";
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { GATE_STORE_FILE } from "../gate/gateStore.ts";
import { type Grant, grantState } from "../gate/store/grants.ts";
import { type InstalledPlugin, installedPlugins, prepareInstall, removePlugin } from "../plugins/packages.ts";
import type { Described } from "../plugins/protocol.ts";
import type { Cli } from "./factory.ts";
import { type Form, jsonText, outputForm } from "./io.ts";
import { type Column, printListing, readerLeft } from "./listing.ts";
import { shown } from "./render.ts";
import { refusalOf, reportError } from "./report.ts";

/**
 * Copies, describes and hashes the plugin at `path`, says what it declares
 * (on stdout on a terminal, else on stderr), asks `install it? [y/N]` on a
 * terminal unless --yes, then installs it. Piped without --yes it refuses
 * (core.plugin.declined): nobody saw what it declares.
 */
export async function install(cli: Cli, path: string, opts: { yes?: boolean; json?: boolean }): Promise<number> {
  const { io } = cli;
  try {
    const dataDir = dirs(io.env).data;
    const pending = await prepareInstall(dataDir, path, namesTaken(builtinCatalogue()));
    const form = outputForm(io, opts.json);
    const say = form === "terminal" ? io.out : io.err;
    try {
      say(
        declares(
          pending.described,
          pending.sha256,
          pending.replaces,
          standing(cli, dataDir, pending.name, pending.sha256),
        ),
      );
      const asked = io.stdinIsTTY && io.stdoutIsTTY;
      if (opts.yes !== true && !asked)
        throw new RtaError(
          "core.plugin.declined",
          `plugin ${pending.name} was not installed: nobody was asked`,
          "run it on a terminal to be asked, or give --yes to install it as shown",
        );
      if (opts.yes !== true) {
        say("install it? [y/N] ");
        if (!/^(y|yes)$/i.test(io.readLine().trim()))
          throw new RtaError(
            "core.plugin.declined",
            "no plugin was installed",
            "answer y to install it, or give --yes",
          );
      }
    } catch (err) {
      pending.discard();
      throw err;
    }
    const entry = pending.commit(new Date(cli.clock.now()));
    const d = pending.described;
    if (form === "json")
      io.out(
        jsonText(io, {
          name: pending.name,
          version: entry.version,
          sha256: entry.sha256,
          installed: entry.installed,
          capabilities: caps(d),
        }),
      );
    else if (form === "plain") io.out(`${pending.name}\t${shown(entry.version)}\t${entry.sha256}\n`);
    else
      io.out(
        `installed plugin ${pending.name} ${shown(entry.version)}: ${count(d.capabilities.length)}; an agent needs a grant for what is above a free read, e.g. \`rta grant allow ${pending.name} --agent NAME --ttl 30m\`\n`,
      );
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the plugin could not be installed"), opts.json === true);
  }
}

function count(n: number): string {
  return `${n} capabilit${n === 1 ? "y" : "ies"}`;
}

function caps(d: Described): { name: string; safety: string }[] {
  return d.capabilities.map((c) => ({ name: c.name, safety: c.safety })).sort((a, b) => byCodePoint(a.name, b.name));
}

/** The capabilities' names: every one piped; on a terminal the first few and how many, as a plugin may declare 1,000. */
function capsCell(list: { name: string }[], form: Form): string {
  const names = list.map((c) => c.name);
  if (form !== "terminal" || names.length <= SHOWN_CAPS) return names.join(",");
  return `${names.slice(0, SHOWN_CAPS - 1).join(",")},… (${names.length})`;
}

const SHOWN_CAPS = 5;

/**
 * The live grants on plugin `name` pinned to the binary `sha256` (issued
 * before it was removed, or for the same build installed elsewhere): they
 * cover it again once it is installed. None when there is no grant store, or
 * none that can be read.
 */
function standing(cli: Cli, dataDir: string, name: string, sha256: string): string[] {
  if (!existsSync(join(dataDir, GATE_STORE_FILE))) return [];
  const now = cli.clock.now();
  let grants: Grant[];
  try {
    grants = cli.deps().gate().list();
  } catch {
    return []; // a store no rta can read has no grant a call could spend
  }
  return grants
    .filter((g) => g.digest === sha256 && (g.target === name || g.target.startsWith(`${name}.`)))
    .filter((g) => grantState(g, now) === "live")
    .map((g) => g.id);
}

/** What a plugin declares, as lines: its name, version and digest, each capability with its safety class. */
function declares(
  d: Described,
  sha256: string,
  replaces?: { version: string; sha256: string },
  live: string[] = [],
): string {
  const width = Math.max(...d.capabilities.map((c) => c.name.length), 0);
  const lines = [`plugin ${d.name} ${shown(d.version)} (sha256 ${sha256}) declares:`];
  for (const c of [...d.capabilities].sort((a, b) => byCodePoint(a.name, b.name)))
    lines.push(`  ${c.name.padEnd(width)}  ${c.safety.padEnd(11)}  ${shown(c.summary)}`);
  if (d.capabilities.length === 0) lines.push("  nothing");
  // a plugin may declare 1,000: the tally stays beside the question, however far the list scrolled
  else lines.push(`in all: ${count(d.capabilities.length)}, ${tally(d)}`);
  if (replaces !== undefined && replaces.sha256 !== sha256)
    lines.push(
      `it replaces ${d.name} ${shown(replaces.version)} (sha256 ${replaces.sha256.slice(0, 12)}): grants issued for that one will cover nothing`,
    );
  if (live.length > 0 && replaces?.sha256 !== sha256)
    lines.push(
      `${live.length === 1 ? "a live grant was" : `${live.length} live grants were`} issued for this very binary, and will cover it as soon as it is installed: ${live.join(", ")} (\`rta grant revoke ID\` takes one back)`,
    );
  return `${lines.join("\n")}\n`;
}

/** How many it declares of each safety class, the mildest first: "5 read, 1 write". */
function tally(d: Described): string {
  const classes = ["read", "write", "destructive"] as const;
  return classes
    .map((safety) => [safety, d.capabilities.filter((c) => c.safety === safety).length] as const)
    .filter(([, n]) => n > 0)
    .map(([safety, n]) => `${n} ${safety}`)
    .join(", ");
}

function stateText(p: InstalledPlugin, form: Form): string {
  if (p.state === "ok") return "ok";
  if (p.state === "changed")
    return form === "terminal" ? `changed: it hashes to ${p.sha256.slice(0, 12)} now` : `changed`;
  return form === "terminal" ? `invalid: ${p.reason}` : "invalid";
}

/**
 * The installed plugins (`pkg list`), or every one hashed again (`pkg verify`,
 * which exits 1 when any changed or is invalid): a grid on a terminal, a
 * tab-separated row a plugin piped, `{"plugins": [...], "total": n}` with --json.
 */
export function list(cli: Cli, opts: { json?: boolean }, verify: boolean): number {
  const { io } = cli;
  try {
    const plugins = installedPlugins(dirs(io.env).data, verify);
    const columns: Column<InstalledPlugin>[] = [
      { name: "name", cell: (p) => p.name },
      { name: "version", cell: (p) => p.entry.version },
      { name: "digest", cell: (p, form) => (form === "terminal" ? p.entry.sha256.slice(0, 12) : p.entry.sha256) },
      {
        name: "capabilities",
        cell: (p, form) => (p.described ? capsCell(caps(p.described), form) : null),
      },
      { name: "state", cell: stateText },
    ];
    printListing(cli, opts.json, {
      key: "plugins",
      items: plugins,
      columns,
      json: (p) => ({
        name: p.name,
        version: p.entry.version,
        sha256: p.entry.sha256,
        installed: p.entry.installed,
        capabilities: p.described ? caps(p.described) : [],
        state: p.state,
        ...(p.state === "changed" ? { now_sha256: p.sha256 } : {}),
        ...(p.state === "invalid" ? { reason: p.reason } : {}),
      }),
      empty: "no plugins installed: `rta pkg install PATH` installs one",
    });
    const bad = plugins.filter((p) => p.state !== "ok");
    if (verify && bad.length > 0 && outputForm(io, opts.json) !== "json")
      io.err(
        `${bad.map((p) => p.name).join(", ")}: not the binary that was installed or not usable; grants on a changed plugin cover nothing: \`rta pkg install\` the binary you mean, then grant again\n`,
      );
    return verify && bad.length > 0 ? Exit.failure : Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the plugins could not be listed"), opts.json === true);
  }
}

/** Removes an installed plugin and says so; refuses a name not installed (core.plugin.unknown). */
export function remove(cli: Cli, name: string, opts: { json?: boolean }): number {
  const { io } = cli;
  try {
    const entry = removePlugin(dirs(io.env).data, name);
    const form = outputForm(io, opts.json);
    if (form === "json") io.out(jsonText(io, { name, version: entry.version, sha256: entry.sha256, removed: true }));
    else if (form === "plain") io.out(`${name}\n`);
    else io.out(`removed plugin ${name} ${shown(entry.version)}\n`);
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the plugin could not be removed"), opts.json === true);
  }
}
