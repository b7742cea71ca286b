/**
 * `rta mcp install`, and the flag checks it shares with serving (--max-result,
 * the roots and host names served): the client's registration of this server,
 * shown or merged into its config. Serving itself is in serve.ts.
 */
import { existsSync, statSync } from "node:fs";
import { optionalAgentName } from "../core/agentName.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { hostOf, isHostOrAddress } from "../core/hostName.ts";
import { MAX_RESULT_RANGE_MIB } from "../gate/bound.ts";
import { CLIENTS, configPath, isClient, registration, renderRegistration, writeRegistration } from "../mcp/install.ts";
import { type Io, wantsJson } from "./io.ts";
import { reportError } from "./report.ts";

export interface InstallOptions {
  root: string[];
  agent?: string;
  maxResult?: string;
  write?: boolean;
  json?: boolean;
}

/**
 * Prints a client's registration of this server, or with --write merges it
 * into the client's config (the old file kept beside it). Refuses an unknown
 * client, a bad --max-result or --agent, and a --root that is not a
 * directory, each with its code.
 */
export function install(cli: { io: Io }, client: string, opts: InstallOptions): number {
  const { io } = cli;
  const asJson = wantsJson(io, opts.json);
  if (!isClient(client)) {
    return reportError(
      io,
      new RtaError(
        "core.input.option",
        `client cannot be ${JSON.stringify(client)}`,
        `client is one of: ${CLIENTS.join(", ")}`,
      ),
      opts.json === true,
    );
  }
  let reg: ReturnType<typeof registration>;
  try {
    const maxResultMiB = parseMaxResult(opts.maxResult);
    const agent = optionalAgentName(opts.agent);
    for (const root of opts.root) {
      if (!existsSync(root) || !statSync(root).isDirectory())
        throw new RtaError(
          "core.input.invalid",
          `--root ${JSON.stringify(root)} is not a directory`,
          "give --root a directory that exists; the server would refuse every path under it",
        );
    }
    if (opts.root.length === 0)
      io.err(
        "rta: no --root: the server will confine paths to the directory the client starts it in; name one with --root DIR\n",
      );
    reg = registration(client, {
      binary: process.execPath,
      roots: opts.root,
      env: io.env,
      ...(agent ? { agent } : {}),
      ...(maxResultMiB ? { maxResultMiB } : {}),
    });
  } catch (err) {
    return reportError(io, err as RtaError, opts.json === true);
  }
  const file = configPath(client);
  if (!opts.write) {
    if (asJson)
      io.out(
        `${JSON.stringify({ client, file, command: reg.command, args: reg.args, ...(reg.env ? { env: reg.env } : {}) })}\n`,
      );
    else io.out(`# add this to ${file} (or run again with --write to merge it in)\n${renderRegistration(reg)}`);
    return Exit.ok;
  }
  try {
    const written = writeRegistration(reg, file);
    if (asJson) io.out(`${JSON.stringify({ client, ...written, command: reg.command, args: reg.args })}\n`);
    else io.out(`wrote ${written.file}${written.backup ? ` (the old file is kept as ${written.backup})` : ""}\n`);
    return Exit.ok;
  } catch (err) {
    if (err instanceof RtaError) return reportError(io, err, opts.json === true);
    return reportError(
      io,
      new RtaError(
        "core.config.unreadable",
        `${file} could not be written: ${(err as Error).message}`,
        "check the folder exists and is yours to write",
      ),
      opts.json === true,
    );
  }
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
