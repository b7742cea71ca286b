/**
 * Serving MCP over stdio, from the session's start line to its end line: one
 * client, the one that started the process. Every call goes to the one
 * pipeline through the server factory; nothing here decides what an agent
 * may do. A client that closes its end ends the session (its calls under way
 * are cancelled and recorded); a signal lets the calls under way finish
 * first.
 */
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { Exit } from "../../core/errors.ts";
import { withRoots } from "../../gate/paths/stage.ts";
import { BoundedStdioTransport } from "../boundedStdio.ts";
import { callerOf } from "../caller.ts";
import { registrationFiles } from "../install.ts";
import { createServer } from "../server.ts";
import type { ByteSource } from "../stdinSource.ts";
import { Subscriptions } from "../subscriptions.ts";
import { withListens } from "../subscriptionsListen.ts";
import { CANCEL_GRACE_MS, CallsInFlight, finishCalls } from "./callsInFlight.ts";
import { DirectCalls } from "./directCall.ts";
import {
  endSession,
  openChannel,
  type ServeEnd,
  type ServeOptions,
  type SessionRecord,
  sayStopping,
  sayWhereServing,
  serverContext,
  startSession,
  untilStopped,
} from "./session.ts";

export interface StdioServeOptions extends ServeOptions {
  /** the client's bytes: the process's stdin (stdinSource) or, in a test, a Node stream */
  input: ByteSource | NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** shows a name the client offered as a root (made safe for a terminal) */
  shown: (name: string) => string;
  /** false: every request goes to the SDK, none takes the direct path (directCall.ts); default true */
  direct?: boolean;
  /** handed the direct path once it is made: a test's view of what it took */
  onDirect?: (direct: DirectCalls) => void;
  /** the server was started with --root: a 2026-07-28 client is not asked for its roots inside a call */
  rootsGiven?: boolean;
}

/**
 * Serves one client over `input` and `output` until it closes its end, a
 * request passes the size limit (status failure), or a stop signal comes
 * (the process must then end: stdin is still open).
 */
export async function serveStdio(o: StdioServeOptions): Promise<ServeEnd> {
  const { deps } = o;
  const stopSignal = o.stopSignal ?? untilStopped;
  const served = deps.roots;
  const roots = served.roots;
  startSession(o, "stdio");
  // A client that stops its server with a signal (as the SDK's does when stdin's end is not enough) still gets
  // the session's end line, so the record does not read as cut.
  const signalled = stopSignal().then(() => "signal" as const);
  o.say("rta mcp server listening on stdio");
  const config = deps.config.current();
  sayWhereServing(
    o,
    config.kind === "unreadable"
      ? [`rta: ${config.error.message}; what a profile could change is refused until it reads (run \`rta doctor\`)`]
      : [],
  );

  const channel = await openChannel(o, "stdio");
  // a person at `rta operator` may end this session: it ends as if the client had closed its end
  let endNow: () => void = () => {};
  const endedByOperator = new Promise<"operator">((resolve) => {
    endNow = () => resolve("operator");
  });
  if (channel) {
    if (o.agent) channel.state.sessionStarted(o.session, o.agent);
    channel.state.sessionEnder = {
      one: (id) => {
        if (id !== o.session) return false;
        endNow();
        return true;
      },
      ofAgent: () => 0,
    };
  }
  const calls = new CallsInFlight();
  const onClientRoots = (offered: string[]) => {
    const added = offered.filter((r) => !roots.includes(r));
    // a client reads a project's registration from the project: in a root it offers, as in the server's own
    deps.roots = withRoots(served, added, registrationFiles(undefined, added));
    if (added.length > 0) o.say(`rta: the client offered roots: ${added.map(o.shown).join(", ")}`);
  };
  // the direct path is handed it too: a call that may ask for the roots is left to the SDK
  const base = {
    ...serverContext(o, "stdio", channel?.state),
    ...(o.rootsGiven ? {} : { rootsInCall: { heard: false, offered: onClientRoots } }),
  };
  const direct = o.direct === false ? undefined : new DirectCalls(base, calls);
  if (direct) o.onDirect?.(direct);
  // the connection's resource subscriptions: a 2026-07-28 listen's are seen by the transport before the SDK's entry
  const subscriptions = new Subscriptions();
  const answers = withListens(direct, subscriptions, (client) => callerOf(base, client));
  const transport = new BoundedStdioTransport({ input: o.input, output: o.output, say: o.say, direct: answers });
  const ctx = {
    ...base,
    ...(direct ? { onSdkCall: direct.sdkCall } : {}),
    onClientRoots,
    subscriptions,
  };
  const handle = sdkServeStdio(() => calls.track(createServer(ctx)), {
    transport,
    onerror: (err) => {
      if (o.debug) o.say(`rta: protocol: ${err.message}`);
    },
  });
  const why = await Promise.race([transport.ended().then(() => "ended" as const), signalled, endedByOperator]);
  const closeChannel = () => {
    channel?.state.sessionEnded(o.session);
    channel?.close();
  };
  if (why === "signal") {
    // Told to stop: read no more requests, let the calls under way finish and answer (cancelled past a grace),
    // and end the session once each has its line in the record.
    transport.stopReading();
    const again = stopSignal();
    sayStopping(o, calls.size);
    const unstopped = await finishCalls(calls, again);
    await Promise.race([handle.close(), Bun.sleep(CANCEL_GRACE_MS)]);
    subscriptions.close();
    await endSession(o, "stdio", unstopped);
    closeChannel();
    // The finished calls' answers are written; let them leave before the process does.
    await Promise.race([
      new Promise<void>((resolve) => o.output.write("", () => resolve())),
      Bun.sleep(CANCEL_GRACE_MS),
    ]);
    return { status: Exit.ok, exit: true };
  }
  // The client closed its end: closing the server cancels the calls under way, and each is recorded as it stops.
  // Ended by a person at `rta operator`: the same, and the process ends (stdin is still open).
  if (why === "ended") await answersOut(o.record);
  await handle.close();
  subscriptions.close();
  await calls.settled(CANCEL_GRACE_MS);
  await endSession(o, "stdio", calls.size);
  closeChannel();
  if (why === "operator") o.say("rta: a person ended this session through the operator channel");
  return { status: transport.endedOnLimit ? Exit.failure : Exit.ok, exit: why === "operator" };
}

/**
 * Waits, CANCEL_GRACE_MS at most, for the calls whose run is over to be answered: a shared store commits lines in
 * batches, and a call whose line is on its way is done but for its answer. A file record writes each line as it
 * comes, so its calls are answered by then already: a client that sends its calls and closes its end (a script's
 * pipe) is answered every call that ran, whichever record it is. Calls still running are cancelled after, as before.
 */
export async function answersOut(record: SessionRecord): Promise<void> {
  // its timer is cleared once the wait is over: one left pending kept the process, its session ended, for the
  // whole grace, and a script's pipe waited on it
  let timer: ReturnType<typeof setTimeout> | undefined;
  let over = false;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      over = true;
      resolve();
    }, CANCEL_GRACE_MS);
  });
  try {
    do {
      await Promise.race([record.settled(), grace]);
      // a committed line's call goes on to its answer in the turns after: they are let run
      await new Promise((resolve) => setImmediate(resolve));
    } while (record.unsettledLines && !over);
  } finally {
    clearTimeout(timer);
  }
}
