/**
 * What serving over stdio and over HTTP share: the options a server is
 * started with, the session's record (its start and end lines, and nothing
 * after the end), the banner's common lines, and the order a stopping server
 * keeps. The operator is told things through `say` only; nothing here writes
 * to a terminal or ends the process.
 */
import { randomBytes } from "node:crypto";
import type { Catalogue } from "../../core/catalogue.ts";
import { identityFile } from "../../core/dirs.ts";
import { RtaError } from "../../core/errors.ts";
import type { Limits } from "../../gate/bound.ts";
import type { Deps } from "../../gate/deps.ts";
import { OperatorChannel } from "../../operator/channel.ts";
import { runDirOf } from "../../operator/runDir.ts";
import { ServerState } from "../../operator/state.ts";
import { type RecordEntry, type RecordSink, sessionMark } from "../../record/append.ts";
import type { ServeContext } from "../server.ts";
import { SHUTDOWN_GRACE_MS } from "./callsInFlight.ts";

/** What a server is started with, on either transport. */
export interface ServeOptions {
  catalogue: Catalogue;
  deps: Deps;
  /** the session's record, also the one in deps: its end line closes it */
  record: SessionRecord;
  /** where the record is, named in the banner */
  recordFile: string;
  /** this server process's session id, written on every record line */
  session: string;
  /** from the registration (`--agent`); else the client's reported name */
  agent?: string;
  limits: Limits;
  /** one line for the operator (stderr), without its newline */
  say: (line: string) => void;
  /** RTA_DEBUG: protocol faults and unexpected failures are said in full */
  debug: boolean;
  /** lines the banner ends with, on either transport (an upstream left out, with why) */
  notes?: string[];
  /** the upstreams' selected resources, templates and prompts */
  upstreams?: ServeContext["upstreams"];
  /** the environment: where the operator channel's socket goes (XDG_RUNTIME_DIR, RTA_DATA_DIR) */
  env?: Record<string, string | undefined>;
  /** false: no operator channel (an in-process test's server) */
  channel?: boolean;
  /** resolves when the server is told to stop; called again for a second signal. Default: untilStopped */
  stopSignal?: () => Promise<void>;
}

/** How a server ended: the exit status, and whether the process must end now (it still holds stdin or its port). */
export interface ServeEnd {
  status: number;
  exit: boolean;
}

/** A new id for each server process: one word, written on every record line. Refuses nothing. */
export function newSessionId(): string {
  return randomBytes(4).toString("hex");
}

/** What a server's calls run with on either transport; each transport adds its name and its own hooks. */
export function serverContext(
  o: ServeOptions,
  transport: ServeContext["transport"],
  operator?: ServerState,
): ServeContext {
  return {
    ...(operator ? { operator } : {}),
    catalogue: o.catalogue,
    deps: o.deps,
    session: o.session,
    transport,
    limits: o.limits,
    ...(o.agent ? { agent: o.agent } : {}),
    ...(o.upstreams ? { upstreams: o.upstreams } : {}),
    onUnexpected: (thrown: unknown) => {
      if (o.debug) o.say(`${(thrown as Error)?.stack ?? String(thrown)}`);
    },
  };
}

/**
 * The banner's lines after the first few, said on either transport: the roots, the record, the identity the kv store
 * opens with (or that it opens none), a root that cannot be read.
 */
export function sayWhereServing(o: ServeOptions, notes: string[] = []): void {
  o.say(`path arguments confined to: ${o.deps.roots.roots.join(", ")}`);
  o.say(`record: ${o.recordFile} (session ${o.session})`);
  const identity = identityFile(o.deps.dirs);
  o.say(
    identity === undefined
      ? "kv store: locked, no identity handed to this server (neither RTA_KV_IDENTITY nor --kv): the kv tools answer kv.locked"
      : `kv store: identity file ${identity}`,
  );
  for (const note of [...notes, ...(o.notes ?? [])]) o.say(note);
  // A root that cannot be read refuses every path under it; the server serves the others.
  for (const root of o.deps.roots.status()) {
    if (!root.readable)
      o.say(`rta: root ${root.path} cannot be read, so every path under it is refused: ${root.problem}`);
  }
}

/** Said when a stop signal finds calls under way; nothing when there are none. */
export function sayStopping(o: ServeOptions, underWay: number): void {
  if (underWay > 0)
    o.say(
      `rta: stopping: ${underWay} call(s) under way may take up to ${SHUTDOWN_GRACE_MS / 1000} s to finish (signal again to cancel them now)`,
    );
}

/**
 * The record as a server's calls reach it. The session's start line, made
 * when the server starts, is written just before the session's first other
 * line: a server's start (and a client's first `initialize` and `tools/list`)
 * does not wait for the record's key, the grant store and the file, which no
 * answer before the first call needs. Once the session's end line is written
 * nothing more is: a call that did not stop even when cancelled would
 * otherwise be written after the end, which --verify reads as tampering.
 */
export class SessionRecord implements RecordSink {
  private ended = false;
  /** the start line, until it is written */
  private start: RecordEntry | undefined;
  /** a batching sink's start line on its way: the session's other lines wait for it */
  private starting: Promise<void> | undefined;
  /** the lines handed to a batching sink and not yet committed or refused */
  private readonly unsettled = new Set<Promise<void>>();

  constructor(
    private readonly record: ClosableSink,
    private readonly onCall?: (entry: RecordEntry) => void,
  ) {}

  /** Keeps the session's start line, written before its first other line. */
  begin(start: RecordEntry): void {
    this.start = start;
  }

  /**
   * Writes a line, the start line first if it is not yet written; refuses (core.record.unavailable) once the
   * session has ended, and when the start line cannot be written: a session's lines never come before its start.
   * With a sink that commits in batches, a promise settled as the line's batch is.
   */
  append(entry: RecordEntry): void | Promise<void> {
    // A call that would start after the end has no line to run under, so it does not run.
    if (this.ended) throw new RtaError("core.record.unavailable", "the session has ended", "start the server again");
    const p = this.write(entry);
    if (p instanceof Promise) {
      this.unsettled.add(p);
      const settle = () => void this.unsettled.delete(p);
      p.then(settle, settle);
    }
    return p;
  }

  /**
   * Resolves once every line handed to a batching sink is committed or refused, those handed while it waits too:
   * each is the line of a call whose answer waits only for it. At once with a sink that writes each line as it
   * comes. Refuses nothing.
   */
  async settled(): Promise<void> {
    while (this.unsettled.size > 0) await Promise.allSettled([...this.unsettled]);
  }

  /** Whether a line handed to a batching sink is yet to be committed or refused. */
  get unsettledLines(): boolean {
    return this.unsettled.size > 0;
  }

  /** append's write, past its check of the end: a line taken before the end waits for the start line, and is written. */
  private write(entry: RecordEntry): void | Promise<void> {
    if (this.starting) return this.starting.then(() => this.write(entry));
    if (this.start) {
      const start = this.start;
      const p = this.record.append(start);
      this.start = undefined;
      if (p instanceof Promise) {
        // queued with the start line, so committed with it; a start that was not is tried again by the next line
        const q = this.record.append(entry);
        const starting = p.then(
          () => {
            this.starting = undefined;
          },
          (err) => {
            this.starting = undefined;
            this.start ??= start;
            throw err;
          },
        );
        this.starting = starting;
        return Promise.all([starting, q]).then(() => this.told(entry));
      }
    }
    const p = this.record.append(entry);
    if (p instanceof Promise) return p.then(() => this.told(entry));
    this.told(entry);
  }

  private told(entry: RecordEntry): void {
    if (!entry.kind) this.onCall?.(entry);
  }

  /** Writes the end line, and closes the record to every later line (a batching sink once its lines are in). */
  end(entry: RecordEntry): void | Promise<void> {
    const p = markSession(this, entry);
    this.ended = true;
    if (p instanceof Promise) return p.then(() => this.record.close());
    return this.record.close();
  }
}

/** A record sink that is closed when its session ends: a batching one's close waits for its lines. */
export interface ClosableSink extends RecordSink {
  close(): void | Promise<void>;
}

/**
 * Makes the session's start line, with the time and process of the server's start; it is written before the
 * session's first call line or its end line, whichever comes first (see SessionRecord).
 */
export function startSession(o: ServeOptions, transport: string): void {
  o.record.begin(sessionMark("start", o.session, new Date(o.deps.clock.now()), transport));
}

/**
 * Writes a session's end line once its calls are recorded; a call that did not stop is said first. A promise when
 * the record commits in batches: the process must not end before it settles.
 */
export function endSession(o: ServeOptions, transport: string, unstopped: number): void | Promise<void> {
  if (unstopped > 0) o.say(`rta: ${unstopped} call(s) did not stop when cancelled; ending without their record lines`);
  return o.record.end(sessionMark("end", o.session, new Date(o.deps.clock.now()), transport));
}

/** Writes a session's start or end; a record that cannot take it has been said on stderr, and calls are refused. */
function markSession(record: RecordSink, entry: RecordEntry): void | Promise<void> {
  try {
    const p = record.append(entry);
    if (p instanceof Promise) return p.catch(() => {});
  } catch {
    // said once by the record's onFailure
  }
}

/** Resolves when the process is told to stop: SIGINT, SIGTERM or SIGHUP, whichever comes first. Refuses nothing. */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(sig, () => resolve());
  });
}

/**
 * Opens the server's operator channel (src/operator/), its view of what the server does told to every person
 * watching; undefined when it is not wanted or cannot be opened (said through `say`). Refuses nothing.
 */
export async function openChannel(o: ServeOptions, transport: "stdio" | "http"): Promise<OperatorChannel | undefined> {
  if (o.channel === false || o.env === undefined) return undefined;
  const state = new ServerState(
    {
      server: o.session,
      pid: process.pid,
      transport,
      ...(o.agent ? { agent: o.agent } : {}),
      started: new Date(o.deps.clock.now()).toISOString(),
    },
    o.deps,
    o.catalogue,
  );
  const channel = await OperatorChannel.open({
    session: o.session,
    runDir: runDirOf(o.env, o.deps.dirs.data),
    say: o.say,
    state,
  });
  return channel;
}
