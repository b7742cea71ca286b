/**
 * `rta mcp serve`: reads the flags, builds the record and the dependencies
 * the server runs with, and hands over to serving (src/mcp/serve/). Serving
 * is a front: nothing here or there decides what an agent may do.
 */
import { join, resolve } from "node:path";
import { optionalAgentName } from "../core/agentName.ts";
import { ConfigSource } from "../core/config.ts";
import { dirs, RECORD_FILE } from "../core/dirs.ts";
import { RtaError } from "../core/errors.ts";
import { agentLimits } from "../gate/bound.ts";
import type { HttpAddress } from "../mcp/serve/http.ts";
import { newSessionId, type ServeEnd, type ServeOptions, SessionRecord } from "../mcp/serve/session.ts";
import { serveStdio } from "../mcp/serve/stdio.ts";
import { stdinSource } from "../mcp/stdinSource.ts";
import { FileRecord } from "../record/append.ts";
import { recordKey } from "../record/key.ts";
import { redactorFor } from "./deps.ts";
import type { Cli } from "./factory.ts";
import { checkServedPlaces, parseMaxResult } from "./mcp.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";
import { namedStore } from "./storeFlag.ts";
import { serveNotes } from "./upstreamDoctor.ts";

export interface ServeFlags {
  root: string[];
  verbose?: boolean;
  /** serve over HTTP: true for the default address, or HOST:PORT */
  http?: boolean | string;
  allowHost: string[];
  agent?: string;
  maxResult?: string;
  /** open the kv store with the default identity (`<config dir>/identity.txt`) when RTA_KV_IDENTITY names none */
  kv?: boolean;
}

/**
 * Serves until the client leaves or a signal stops the server, and returns
 * the exit status; a server stopped by a signal ends the process itself, as
 * stdin or its port would keep it alive. Refuses bad flags (and an address it
 * cannot listen on) with their code before anything is recorded.
 */
export async function serve(cli: Cli, flags: ServeFlags): Promise<number> {
  const { io } = cli;
  let maxResult: number | undefined;
  let agent: string | undefined;
  try {
    maxResult = parseMaxResult(flags.maxResult);
    agent = optionalAgentName(flags.agent);
    checkServedPlaces(flags.root, flags.allowHost);
  } catch (err) {
    return reportError(io, err as RtaError, false);
  }
  const given = flags.root.map((r) => resolve(r));
  let session = newSessionId();
  const dataDir = dirs(io.env).data;
  const recordFile = join(dataDir, RECORD_FILE);
  let warned = false;
  // Said once, not per call: an agent retrying must not fill the operator's terminal either.
  const onFailure = (err: unknown) => {
    if (warned) return;
    warned = true;
    io.err(
      `rta: the record cannot be written, so agent calls are refused (core.record.unavailable) until it can: ${shown((err as Error).message)}\n`,
    );
  };
  // A shared store (--store, RTA_STORE, config's store): a config that names one but does not read stops the server.
  // config.toml is read through one source, here and by the server's dependencies: a start parses it once
  const config = ConfigSource.inConfigDir(dirs(io.env).config);
  let named: string | undefined;
  try {
    named = namedStore(io.env, config);
  } catch (err) {
    return reportError(io, err as RtaError, false);
  }
  const storeUrl = named;
  // The PostgreSQL modules are loaded only for a shared store: a server on the data dir's gate.db does not pay for
  // them (nor for Bun's SQL client, which pgRecord.ts takes up as it loads) at start.
  const pg = storeUrl ? await import("../gate/store/pgStore.ts") : undefined;
  // With a PostgreSQL store the record is in it too (pgRecord.ts), its lines committed in batches.
  const inStore = storeUrl !== undefined && pg?.isPostgresUrl(storeUrl) === true;
  const pgRecord = inStore ? await import("../gate/store/pgRecord.ts") : undefined;
  const record =
    pgRecord && storeUrl
      ? new pgRecord.PgRecord(storeUrl, { onFailure })
      : new FileRecord(recordFile, { key: () => recordKey(dataDir), checkpoints: () => deps.gate(), onFailure });
  // With --verbose every agent call is also one short line on stderr: tool, outcome, duration, never the arguments.
  const sink = new SessionRecord(
    record,
    flags.verbose
      ? (entry) =>
          io.err(`rta: ${shown(entry.agent)} ${shown(entry.capability)} ${entry.outcome} ${entry.duration_ms} ms\n`)
      : undefined,
  );
  const deps = cli.serverDeps(sink, given, config);
  // A shared store (--store, RTA_STORE, config's store) is opened now: one that cannot be reached, or holds a newer
  // schema than this rta's, stops the server before it listens, saying why without the URL's password.
  let shared: string | undefined;
  if (storeUrl && pg) {
    try {
      const gate = deps.gate();
      if (gate instanceof pg.PgGateStore) shared = gate.label;
    } catch (err) {
      if (err instanceof RtaError) return reportError(io, err, false);
      throw err;
    }
  }
  // in the store each session is its own chain, under its id: one no past session there has
  if (pgRecord && record instanceof pgRecord.PgRecord) session = await record.freshSession(session, newSessionId);
  // A server opens the kv store only when told to: RTA_KV_IDENTITY in its environment, or --kv. A registration always
  // carries the config dir, so the identity there would otherwise open the store for every agent unasked.
  if (!flags.kv && !io.env.RTA_KV_IDENTITY) deps.dirs = { ...deps.dirs, identity: null };
  const limits = agentLimits(maxResult);
  // a plugin's answer is held to the same hard bound, from its frame's declared length
  cli.pluginHosts.maxResult = limits.hard;
  // a plugin installed or removed with `rta pkg` while the server runs is taken up, and the client told
  cli.watch();
  // each upstream is discovered before the first tools/list (one that fails or is slow is left out), its messages
  // held to the same bound, with room for their envelope
  await cli.loadUpstreams(true, limits.hard + 1024 * 1024);
  // where the server says its record is: a store is named without its password
  const said =
    inStore && storeUrl
      ? `the shared store ${(await import("../gate/store/pgSchema.ts")).safeUrl(storeUrl)}`
      : recordFile;
  const options: ServeOptions = {
    catalogue: cli.catalogue,
    deps,
    record: sink,
    recordFile: said,
    session,
    limits,
    ...(agent ? { agent } : {}),
    // what the server says names places a person may not have chosen the bytes of (a root, the client's roots):
    // its controls are escaped, its line breaks kept
    say: (line) => io.err(`${line.split("\n").map(shown).join("\n")}\n`),
    debug: Boolean(io.env.RTA_DEBUG),
    env: io.env,
    // an upstream left out is said where the person starting the server looks, not only in `rta upstream list`
    notes: [
      ...(shared ? [`grants, locks and tokens: the shared store ${shared}`] : []),
      ...serveNotes(cli.upstreams()),
    ],
    upstreams: cli.selections(),
  };
  let end: ServeEnd;
  if (flags.http !== undefined && flags.http !== false) {
    // Loaded only for HTTP: a stdio server does not pay for it at start.
    const { DEFAULT_HTTP_ADDRESS, parseAddress, serveHttp } = await import("../mcp/serve/http.ts");
    let address: HttpAddress;
    try {
      address = parseAddress(flags.http === true ? DEFAULT_HTTP_ADDRESS : flags.http);
    } catch (err) {
      return reportError(io, err as RtaError, false);
    }
    // A remote client is told nothing of where the server keeps what it serves.
    deps.redactor = redactorFor(deps.dirs, io.env.RTA_KV_IDENTITY, deps.roots.roots, flags.root);
    try {
      end = await serveHttp({ ...options, address, allowHosts: flags.allowHost });
    } catch (err) {
      if (err instanceof RtaError) return reportError(io, err, false);
      throw err;
    }
  } else {
    const rootsGiven = flags.root.length > 0;
    end = await serveStdio({ ...options, input: stdinSource(), output: process.stdout, shown, rootsGiven });
  }
  cli.closePlugins();
  if (end.exit) process.exit(end.status);
  return end.status;
}
