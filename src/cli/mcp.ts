/**
 * `rta mcp install`, and the flag checks it shares with serving (--max-result,
 * the roots and host names served): the client's registration of this server,
 * shown or merged into its config. Serving itself is in serve.ts.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { optionalAgentName } from "../core/agentName.ts";
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { hostOf, isHostOrAddress } from "../core/hostName.ts";
import { MAX_RESULT_RANGE_MIB } from "../gate/bound.ts";
import {
  CLIENTS,
  type Client,
  configPath,
  defaultHome,
  isClient,
  PROJECT_CLIENTS,
  type Registration,
  registration,
  renderRegistration,
} from "../mcp/install.ts";
import { appendable, writeRegistration } from "../mcp/installMerge.ts";
import { type Io, jsonText } from "./io.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";
import { namedStore } from "./storeFlag.ts";

export interface InstallOptions {
  root: string[];
  agent?: string;
  maxResult?: string;
  project?: string;
  write?: boolean;
  json?: boolean;
  /** carry RTA_KV_IDENTITY (or the default identity's place) into the registration */
  kv?: boolean;
}

/**
 * Prints a client's registration of this server in the client's own format
 * (TOML for codex, JSON for the rest) wherever stdout goes, or with --write
 * merges it into the client's config (the old file kept beside it) and says
 * on stderr where. --json prints rta's description of it instead. Refuses an
 * unknown client, a bad --max-result or --agent, a --root or --project that
 * is not a directory, --project for a client that keeps no project file,
 * --write for claude-code or vscode with neither --project nor --root, a
 * client file it cannot read, and an append to stdout's file that would
 * leave it unreadable, each with its code.
 */
export function install(cli: { io: Io }, client: string, opts: InstallOptions): number {
  const { io } = cli;
  let at = "the client's file";
  try {
    if (!isClient(client))
      throw new RtaError(
        "core.input.option",
        `client cannot be ${JSON.stringify(client)}`,
        `client is one of: ${CLIENTS.join(", ")}`,
      );
    const { reg, file } = planned(io, client, opts);
    at = shown(file);
    if (opts.write) {
      const written = writeRegistration(reg, file);
      if (opts.json) io.out(jsonText(io, { client, ...written, command: reg.command, args: reg.args, env: reg.env }));
      const kept = written.backup ? ` (the old file is kept as ${shown(written.backup)})` : "";
      io.err(`rta: wrote ${shown(file)}${kept}\n`);
      // The file was there before: what else it registers is started by the client too, and whoever could write
      // the folder (an agent served a root above the project) could have put it there. Named, not judged.
      if (written.others.length > 0)
        io.err(
          `rta: note: it also registers ${written.others.map((n) => shown(JSON.stringify(n))).join(", ")}, kept as they were; ${client} starts those too, so check you know them\n`,
        );
      return Exit.ok;
    }
    if (opts.json) {
      io.out(jsonText(io, { client, file, command: reg.command, args: reg.args, env: reg.env }));
      return Exit.ok;
    }
    const rendered = renderRegistration(reg);
    const target = io.stdoutIsTTY ? undefined : io.stdoutFile?.();
    io.out(target ? appendable(target.text, reg, rendered, target.path) : rendered);
    if (!target || resolve(target.path) !== resolve(file))
      io.err(`rta: add this to ${shown(file)}, or run again with --write to merge it in\n`);
    return Exit.ok;
  } catch (err) {
    if (err instanceof RtaError) return reportError(io, err, opts.json === true);
    return reportError(
      io,
      new RtaError(
        "core.config.unreadable",
        `rta could not update ${at}: ${shown((err as Error).message)}`,
        "check that the file and its folder are yours to read and write",
      ),
      opts.json === true,
    );
  }
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The registration and the file it belongs in; refuses the flags that name nothing usable. */
function planned(io: Io, client: Client, opts: InstallOptions): { reg: Registration; file: string } {
  const maxResultMiB = parseMaxResult(opts.maxResult);
  const agent = optionalAgentName(opts.agent);
  for (const root of opts.root) {
    if (!isDir(root))
      throw new RtaError(
        "core.input.invalid",
        `--root ${JSON.stringify(root)} is not a directory`,
        "give --root a directory that exists; the server would refuse every path under it",
      );
  }
  const perProject = PROJECT_CLIENTS.includes(client);
  if (opts.project !== undefined && !perProject)
    throw new RtaError(
      "core.input.invalid",
      `${client} keeps its servers in the home, not in a project, so --project says nothing to it`,
      `leave --project out; it is for ${PROJECT_CLIENTS.join(" and ")}`,
    );
  if (opts.project !== undefined && !isDir(opts.project))
    throw new RtaError(
      "core.input.invalid",
      `--project ${JSON.stringify(opts.project)} is not a directory`,
      "give --project the folder the client opens as the project",
    );
  const project = opts.project ?? opts.root[0];
  if (perProject && project === undefined && opts.write)
    throw new RtaError(
      "core.input.missing",
      `${client} keeps its servers in the project, and no project is named`,
      `name it: \`rta mcp install ${client} --project DIR --write\` (or --root DIR: the first root is the project)`,
    );
  const roots = opts.root.length === 0 && opts.project !== undefined ? [opts.project] : [...opts.root];
  // The server keeps the registration in each root and where it starts from agents (registrationFiles); a project
  // inside a root, and not one itself, would be an agent's to write through the outer root whenever the client starts
  // the server elsewhere. Served as a root too, it is kept, and the agent reaches nothing it did not before.
  const outer = perProject && opts.project !== undefined ? rootAround(opts.project, roots) : undefined;
  if (outer !== undefined && opts.project !== undefined) {
    roots.push(opts.project);
    io.err(
      `rta: --project ${shown(opts.project)} lies under --root ${shown(outer)}: it is served as a root too, so the server keeps its registration from agents\n`,
    );
  }
  if (roots.length === 0)
    io.err(
      "rta: no --root: the server will confine paths to the directory the client starts it in; name one with --root DIR\n",
    );
  const where = dirs(io.env);
  const kvIdentity = kvIdentityFor(io, opts.kv === true, where.config);
  // RTA_STORE may hold the store's password, and a client's file is no place for it: the config dir is carried, so
  // a config that names a store is the store the server it starts uses
  if (io.env.RTA_STORE && !configNamesStore(io.env))
    io.err(
      "rta: note: RTA_STORE is not carried into the registration, so the server it starts keeps its grants, locks and record in the data dir; to share the store, set `store` in config.toml instead\n",
    );
  const reg = registration(client, {
    binary: process.execPath,
    roots,
    dirs: where,
    ...(kvIdentity ? { kvIdentity } : {}),
    ...(io.env.CODEX_HOME ? { codexHome: io.env.CODEX_HOME } : {}),
    ...(agent ? { agent } : {}),
    ...(maxResultMiB ? { maxResultMiB } : {}),
  });
  const file = configPath(client, {
    home: defaultHome(io.env),
    project: project === undefined ? "<your project>" : resolve(project),
    ...(io.env.CODEX_HOME ? { codexHome: io.env.CODEX_HOME } : {}),
  });
  return { reg, file };
}

/**
 * The identity file the registration carries as RTA_KV_IDENTITY: with --kv, the one RTA_KV_IDENTITY names, else
 * `<config dir>/identity.txt`, said on stderr with what it costs; without --kv none (a server opens no identity it
 * is not handed, not even the config dir's), and when RTA_KV_IDENTITY is set or the config dir holds an identity the
 * person is told the server's kv tools will answer kv.locked and how to carry it. Refuses nothing.
 */
function kvIdentityFor(io: Io, kv: boolean, configDir: string): string | undefined {
  const named = io.env.RTA_KV_IDENTITY || undefined;
  const fallback = join(configDir, "identity.txt");
  if (!kv) {
    if (named !== undefined)
      io.err(
        `rta: note: RTA_KV_IDENTITY (${shown(named)}) is not carried into the registration, so the server's kv tools will answer kv.locked; run again with --kv to carry it\n`,
      );
    else if (existsSync(fallback))
      io.err(
        `rta: note: the server will not open the kv store with ${shown(fallback)}, so its kv tools will answer kv.locked; run again with --kv to carry it\n`,
      );
    return undefined;
  }
  const identity = resolve(named ?? fallback);
  io.err(
    `rta: the registration carries RTA_KV_IDENTITY=${shown(identity)}: the server can decrypt every key in the kv store, and each kv.get still needs a grant from you\n`,
  );
  if (!existsSync(identity))
    io.err(
      `rta: note: there is no identity at ${shown(identity)} yet: \`rta keys new\` makes one, and until then the kv tools answer kv.locked\n`,
    );
  return identity;
}

/** The root that holds `project` inside it, when one does and none is the project itself; undefined otherwise. */
function rootAround(project: string, roots: string[]): string | undefined {
  const real = (p: string) => realpathSync(p);
  const at = real(project);
  if (roots.some((r) => real(r) === at)) return undefined;
  return roots.find((r) => at.startsWith(`${real(r).replace(/\/$/, "")}/`));
}

/** Reads --max-result: a whole number of MiB in MAX_RESULT_RANGE_MIB, or nothing for the default. */
export function parseMaxResult(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const [lo, hi] = MAX_RESULT_RANGE_MIB;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < lo || n > hi) {
    throw new RtaError(
      "core.input.range",
      `--max-result is ${JSON.stringify(text)}, outside ${lo}..${hi}`,
      `give --max-result a whole number of MiB from ${lo} to ${hi}`,
    );
  }
  return n;
}

/**
 * Checks what a server is told to serve and to whom: refuses (core.input.invalid) an empty --root, which names no
 * directory (resolved, it would be the one the server starts in, unasked), and an --allow-host that is no host name
 * (an empty one would let every Origin that is no URL, `null` or `file://`, past the Origin check).
 */
export function checkServedPlaces(roots: string[], allowHosts: string[]): void {
  if (roots.includes(""))
    throw new RtaError(
      "core.input.invalid",
      "--root is empty",
      "give --root a directory, or leave it out to serve the directory the server starts in",
    );
  const notHost = allowHosts.find((h) => !isHostOrAddress(hostOf(h) ?? ""));
  if (notHost !== undefined)
    throw new RtaError(
      "core.input.invalid",
      `--allow-host ${JSON.stringify(notHost)} is not a host name`,
      "give the host name clients reach the server by, e.g. --allow-host rta.internal",
    );
}

/** Whether config.toml in the config dir names a shared store (one that does not read is refused where it is used). */
function configNamesStore(env: Record<string, string | undefined>): boolean {
  try {
    return namedStore({ ...env, RTA_STORE: undefined }) !== undefined;
  } catch {
    return true;
  }
}
