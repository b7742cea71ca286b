/**
 * `rta mcp serve`: the server's lifecycle, from the session's start line to
 * its end line, over stdio or HTTP. Serving is a front: it builds the context
 * and hands every call to the one pipeline through the server factory; nothing
 * here decides what an agent may do.
 */
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { optionalAgentName } from "../core/agentName.ts";
import { dirs, RECORD_FILE } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { agentLimits } from "../gate/bound.ts";
import { PathGate } from "../gate/paths/pathGate.ts";
import { CANCEL_GRACE_MS, CallsInFlight, finishCalls, SHUTDOWN_GRACE_MS } from "../mcp/callsInFlight.ts";
import { createServer } from "../mcp/server.ts";
import { BoundedStdioTransport } from "../mcp/stdio.ts";
import { FileRecord, type RecordEntry, type RecordSink, sessionMark } from "../record/append.ts";
import { recordKey } from "../record/key.ts";
import { type processDeps, redactorFor } from "./deps.ts";
import type { Cli } from "./factory.ts";
import { checkServedPlaces, parseMaxResult } from "./mcp.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";

export interface ServeOptions {
  root: string[];
  verbose?: boolean;
  /** serve over HTTP: true for the default address, or HOST:PORT */
  http?: boolean | string;
  allowHost: string[];
  agent?: string;
  maxResult?: string;
}

/** A new id for each server process: one word, written on every record line. */
function newSessionId(): string {
  return randomBytes(4).toString("hex");
}

/**
 * Serves MCP over stdio, or over HTTP with --http, until the client goes or the process is told to stop; refuses,
 * before serving, a bad --max-result, --agent, --root or --allow-host, and an --http address it cannot listen on.
 */
export async function serve(cli: Cli, opts: ServeOptions): Promise<number> {
  const { io } = cli;
  let maxResult: number | undefined;
  let agent: string | undefined;
  try {
    maxResult = parseMaxResult(opts.maxResult);
    agent = optionalAgentName(opts.agent);
    checkServedPlaces(opts.root, opts.allowHost);
  } catch (err) {
    return reportError(io, err as RtaError, false);
  }
  const given = opts.root.map((r) => resolve(r));
  const session = newSessionId();
  const dataDir = dirs(io.env).data;
  const recordFile = join(dataDir, RECORD_FILE);
  let warned = false;
  const record = new FileRecord(recordFile, {
    key: () => recordKey(dataDir),
    checkpoints: () => deps.gate(),
    // Said once, not per call: an agent retrying must not fill the operator's terminal either.
    onFailure: (err) => {
      if (warned) return;
      warned = true;
      io.err(
        `rta: the record cannot be written, so agent calls are refused (core.record.unavailable) until it can: ${shown((err as Error).message)}\n`,
      );
    },
  });

  // With --verbose every agent call is also one short line on stderr: tool, outcome, duration, never the arguments.
  const sink = new SessionRecord(
    record,
    opts.verbose
      ? (entry) =>
          io.err(`rta: ${shown(entry.agent)} ${shown(entry.capability)} ${entry.outcome} ${entry.duration_ms} ms\n`)
      : undefined,
  );
  const deps = cli.serverDeps(sink, given);
  const roots = deps.roots.roots;
  const config = deps.config.current();
  let address: { hostname: string; port: number } | undefined;
  if (opts.http !== undefined && opts.http !== false) {
    // Loaded only for HTTP: a stdio server does not pay for it at start.
    const { DEFAULT_HTTP_ADDRESS, parseAddress } = await import("../mcp/http.ts");
    try {
      address = parseAddress(opts.http === true ? DEFAULT_HTTP_ADDRESS : opts.http);
    } catch {
      return reportError(
        io,
        new RtaError(
          "core.input.invalid",
          `--http ${JSON.stringify(opts.http)} is not HOST:PORT`,
          "e.g. --http 127.0.0.1:8722",
        ),
        false,
      );
    }
    // A remote client is told nothing of where the server keeps what it serves.
    deps.redactor = redactorFor(deps.dirs, io.env.RTA_KV_IDENTITY, deps.roots.roots, opts.root);
  }
  if (address) return serveHttp(cli, deps, roots, recordFile, session, sink, address, opts, agent, maxResult);
  mark(sink, sessionMark("start", session, new Date(), "stdio"));
  // A client that stops its server with a signal (as the SDK's does when stdin's end is not enough) still gets
  // the session's end line, so the record does not read as cut.
  const signalled = untilStopped().then(() => "signal" as const);
  io.err("rta mcp server listening on stdio\n");
  io.err(`path arguments confined to: ${roots.join(", ")}\n`);
  io.err(`record: ${recordFile} (session ${session})\n`);
  if (config.kind === "unreadable") {
    io.err(
      `rta: ${config.error.message}; what a profile could change is refused until it reads (run \`rta doctor\`)\n`,
    );
  }
  sayUnreadableRoots(io, deps);

  const transport = new BoundedStdioTransport({
    input: process.stdin,
    output: process.stdout,
    say: (line) => io.err(`${line}\n`),
  });
  const ctx = {
    ...serverContext(cli, deps, session, agent, maxResult),
    transport: "stdio" as const,
    onClientRoots: (offered: string[]) => {
      const added = offered.filter((r) => !roots.includes(r));
      deps.roots = new PathGate([...roots, ...added], deps.roots.rules, deps.roots.pins);
      if (added.length > 0) io.err(`rta: the client offered roots: ${added.map(shown).join(", ")}\n`);
    },
  };
  const calls = new CallsInFlight();
  const handle = serveStdio(() => calls.track(createServer(ctx)), {
    transport,
    onerror: (err) => {
      if (io.env.RTA_DEBUG) io.err(`rta: protocol: ${err.message}\n`);
    },
  });
  if ((await Promise.race([transport.ended().then(() => "ended" as const), signalled])) === "signal") {
    // Told to stop: read no more requests, let the calls under way finish and answer (cancelled past a grace),
    // and end the session once each has its line in the record.
    transport.stopReading();
    const again = untilStopped();
    sayStopping(io, calls.size);
    const unstopped = await finishCalls(calls, again);
    await Promise.race([handle.close(), Bun.sleep(CANCEL_GRACE_MS)]);
    endSession(io, sink, session, "stdio", unstopped);
    // The finished calls' answers are written; let them leave before the process does.
    await Promise.race([
      new Promise<void>((resolve) => process.stdout.write("", () => resolve())),
      Bun.sleep(CANCEL_GRACE_MS),
    ]);
    process.exit(Exit.ok);
  }
  // The client closed its end: closing the server cancels the calls under way, and each is recorded as it stops.
  await handle.close();
  await calls.settled(CANCEL_GRACE_MS);
  endSession(io, sink, session, "stdio", calls.size);
  return transport.endedOnLimit ? Exit.failure : Exit.ok;
}

/** Serves MCP over HTTP until the process is told to stop (SIGINT or SIGTERM). */
async function serveHttp(
  cli: Cli,
  deps: ReturnType<typeof processDeps>,
  roots: string[],
  recordFile: string,
  session: string,
  record: SessionRecord,
  address: { hostname: string; port: number },
  opts: ServeOptions,
  agent: string | undefined,
  maxResult: number | undefined,
): Promise<number> {
  const { io } = cli;
  const ctx = { ...serverContext(cli, deps, session, agent, maxResult), transport: "http" as const };
  const { httpFront } = await import("../mcp/http.ts");
  const front = httpFront(ctx, { ...address, allowHosts: opts.allowHost });
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: address.hostname,
      port: address.port,
      fetch: front.fetch,
      // Bun's development page shows the source and the working directory: never, whatever NODE_ENV says.
      development: false,
      error(thrown) {
        ctx.onUnexpected?.(thrown);
        return new Response(
          JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "internal error" } }),
          { status: 500, headers: { "content-type": "application/json" } },
        );
      },
    });
  } catch (err) {
    return reportError(io, listenRefusal(address, err), false);
  }
  // Set before the banner, so a signal as soon as it is seen still ends the session with its end line.
  mark(record, sessionMark("start", session, new Date(), "http"));
  const stopped = untilStopped();
  const host = server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname;
  io.err(`rta mcp server listening on http://${host}:${server.port}/mcp\n`);
  try {
    const now = deps.clock.now();
    const live = deps
      .gate()
      .tokens()
      .filter((t) => t.revoked_at === null && (t.expires_at === null || t.expires_at > now));
    if (live.length === 0)
      io.err("rta: no tokens yet, so every request is refused: make one with `rta mcp token new --agent NAME`\n");
  } catch {
    // the store's trouble is said where a call meets it
  }
  io.err(`path arguments confined to: ${roots.join(", ")}\n`);
  io.err(`record: ${recordFile} (session ${session})\n`);
  sayUnreadableRoots(io, deps);
  await stopped;
  // Stop taking requests, let the calls under way finish (cancelled past a grace) and be recorded, then end.
  front.stopAccepting();
  const drained = server.stop(false);
  const again = untilStopped();
  sayStopping(io, front.calls.size);
  const unstopped = await finishCalls(front.calls, again);
  endSession(io, record, session, "http", unstopped);
  // The answers of the calls that finished are still on their way: let them go out (a session's open stream
  // lasts as long as the session, so sessions are closed first), within a bound.
  front.closeSessions();
  await Promise.race([drained, Bun.sleep(CANCEL_GRACE_MS)]);
  void server.stop(true);
  process.exit(Exit.ok);
}

/** What a server's calls run with on either transport; each transport adds its name and its own hooks. */
function serverContext(
  cli: Cli,
  deps: ReturnType<typeof processDeps>,
  session: string,
  agent: string | undefined,
  maxResult: number | undefined,
) {
  const { io } = cli;
  return {
    catalogue: cli.catalogue,
    deps,
    session,
    limits: agentLimits(maxResult),
    ...(agent ? { agent } : {}),
    onUnexpected: (thrown: unknown) => {
      if (io.env.RTA_DEBUG) io.err(`${(thrown as Error)?.stack ?? String(thrown)}\n`);
    },
  };
}

/** Said at start on either transport: a root that cannot be read refuses every path under it. */
function sayUnreadableRoots(io: Cli["io"], deps: ReturnType<typeof processDeps>): void {
  for (const root of deps.roots.status()) {
    if (!root.readable)
      io.err(`rta: root ${root.path} cannot be read, so every path under it is refused: ${root.problem}\n`);
  }
}

function sayStopping(io: Cli["io"], underWay: number): void {
  if (underWay > 0)
    io.err(
      `rta: stopping: ${underWay} call(s) under way may take up to ${SHUTDOWN_GRACE_MS / 1000} s to finish (signal again to cancel them now)\n`,
    );
}

/**
 * The record as a server's calls reach it. Once the session's end line is
 * written nothing more is: a call that did not stop even when cancelled would
 * otherwise be written after the end, which --verify reads as tampering.
 */
class SessionRecord implements RecordSink {
  private ended = false;

  constructor(
    private readonly record: FileRecord,
    private readonly onCall?: (entry: RecordEntry) => void,
  ) {}

  append(entry: RecordEntry): void {
    // A call that would start after the end has no line to run under, so it does not run.
    if (this.ended) throw new RtaError("core.record.unavailable", "the session has ended", "start the server again");
    this.record.append(entry);
    if (!entry.kind) this.onCall?.(entry);
  }

  /** Writes the end line, and closes the record to every later line. */
  end(entry: RecordEntry): void {
    mark(this, entry);
    this.ended = true;
    this.record.close();
  }
}

/** Writes a session's end line once its calls are recorded; a call that did not stop is said on stderr. */
function endSession(io: Cli["io"], sink: SessionRecord, session: string, transport: string, unstopped: number): void {
  if (unstopped > 0)
    io.err(`rta: ${unstopped} call(s) did not stop when cancelled; ending without their record lines\n`);
  sink.end(sessionMark("end", session, new Date(), transport));
}

/** Writes a session's start or end; a record that cannot take it has been said on stderr, and calls are refused. */
function mark(record: RecordSink, entry: RecordEntry): void {
  try {
    record.append(entry);
  } catch {
    // said once by the record's onFailure
  }
}

/** Resolves when the server is told to stop: SIGINT, SIGTERM or SIGHUP, whichever comes first. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(sig, () => resolve());
  });
}

/**
 * Why a listen failed, said for the person who chose --http: the system's own words named a file ("ENOENT: no such
 * file or directory") for a host name that does not resolve, and every failure was hinted as a busy port.
 */
function listenRefusal(address: { hostname: string; port: number }, err: unknown): RtaError {
  const where = `${address.hostname}:${address.port}`;
  const code = (err as { code?: unknown }).code;
  if (code === "EADDRNOTAVAIL" || code === "ENOENT" || code === "ENOTFOUND" || code === "EAI_NONAME")
    return new RtaError(
      "core.input.invalid",
      `cannot listen on ${where}: ${address.hostname} is not an address of this machine`,
      "give a local address, e.g. --http 127.0.0.1:8722",
    );
  if (code === "EACCES")
    return new RtaError(
      "core.input.invalid",
      `cannot listen on ${where}: this account may not use port ${address.port}`,
      "choose a port from 1024, e.g. --http 127.0.0.1:8722",
    );
  return new RtaError(
    "core.input.invalid",
    `cannot listen on ${where}: port ${address.port} is in use or cannot be used`,
    "choose another port with --http HOST:PORT",
  );
}
