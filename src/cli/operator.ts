/**
 * `rta operator`: the operator's seat over every server running for this
 * user and data dir, through the operator channel (src/operator/). On a
 * terminal, a live view (operatorView.ts); piped, the servers' events as JSON
 * lines, as they come, until interrupted or the reader leaves. `approve` and
 * `deny` answer a pending consent, for scripts. Never a tool.
 */
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { OperatorClient } from "../operator/client.ts";
import { runDirOf } from "../operator/runDir.ts";
import type { ChannelEvent } from "../operator/wire.ts";
import type { Cli } from "./factory.ts";
import { typedYes } from "./grantFrom.ts";
import { outputForm } from "./io.ts";
import { readerLeft } from "./listing.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";

/** How often a piped stream asks whether its reader left. */
const READER_POLL_MS = 200;

/** The operator client for this process's environment. Refuses an unsafe run dir (core.operator.unsafe). */
export function openClient(cli: Cli): Promise<OperatorClient> {
  return OperatorClient.open(runDirOf(cli.io.env, dirs(cli.io.env).data));
}

/**
 * Watches every running server (and each one started later) until Ctrl-C,
 * SIGTERM or, piped, the reader leaving. Returns 130 or 143 for a signal, as
 * a shell says it, else 0. Refuses an unsafe run dir.
 */
export async function watch(cli: Cli, opts: { json?: boolean }): Promise<number> {
  const { io } = cli;
  let client: OperatorClient;
  try {
    client = await openClient(cli);
  } catch (err) {
    if (err instanceof RtaError) return reportError(io, err, opts.json === true);
    throw err;
  }
  if (outputForm(io, opts.json) === "terminal") {
    const { runView } = await import("./operatorView.ts");
    return runView(cli, client);
  }
  let stopped = 0;
  const onInt = () => {
    stopped = 130;
  };
  const onTerm = () => {
    stopped = 143;
  };
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  const gone = io.stdoutFd !== undefined ? (await import("./readerGone.ts")).readerGone(io.stdoutFd) : () => false;
  let left = false;
  const print = (event: ChannelEvent) => {
    if (left) return;
    try {
      io.out(`${JSON.stringify(event)}\n`);
    } catch (err) {
      if (!readerLeft(err)) throw err;
      left = true;
    }
  };
  client.onEvent(print);
  client.onGone((_path, server) => {
    // a server that went without a word (killed): said so the stream is whole
    if (server !== undefined) print({ event: "server_ended", server, time: new Date(cli.clock.now()).toISOString() });
  });
  client.follow();
  try {
    while (stopped === 0 && !left && !gone()) await Bun.sleep(READER_POLL_MS);
  } finally {
    client.close();
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
  return stopped === 0 ? Exit.ok : stopped;
}

/**
 * Answers a pending consent on whichever server holds it: `approve` accepts
 * (with `choice` for a grant asked for, its first choice by default), `deny`
 * declines. Under grant_from (either setting) an approval is typed on a terminal
 * (core.grant.noterminal without one). Refuses core.operator.offline (no server runs),
 * core.operator.unknown (none holds that id) and an unsafe run dir.
 */
export async function answer(
  cli: Cli,
  op: "approve" | "deny",
  id: string,
  opts: { choice?: string; json?: boolean },
): Promise<number> {
  const { io } = cli;
  const json = opts.json === true;
  let client: OperatorClient | undefined;
  try {
    client = await openClient(cli);
    if (client.servers === 0)
      throw new RtaError(
        "core.operator.unknown",
        "no rta server is running for this user and data dir",
        "start one with `rta mcp serve`, or check RTA_DATA_DIR",
      );
    // under grant_from an approval is a person's: typed at a terminal, as grant_from = "terminal" asks, so an agent
    // with a shell tool cannot approve what it asked for itself (`rta operator`'s own view is on one)
    if (op === "approve" && cli.deps().policy.current().grantFrom !== undefined)
      await typedYes(cli, `approve the pending request ${shown(id)}`, "approve it");
    const replies = await client.request(
      op === "approve" ? { op, id, ...(opts.choice ? { choice: opts.choice } : {}) } : { op, id },
    );
    const done = replies.find((r) => r.ok);
    if (!done) {
      const other = replies.find((r) => r.error && r.error.code !== "core.operator.unknown")?.error;
      if (other) throw new RtaError(other.code as never, other.message, "see the pending consents with `rta operator`");
      throw new RtaError(
        "core.operator.unknown",
        `no running server holds a pending consent ${JSON.stringify(id)}`,
        "it was answered, timed out, or its server ended; see what waits with `rta operator`",
      );
    }
    const form = outputForm(io, opts.json);
    const verb = op === "approve" ? "approved" : "denied";
    if (form === "json") io.out(`${JSON.stringify({ id, answer: verb, server: done.server })}\n`);
    else if (form === "terminal") io.out(`${verb} ${shown(id)} (server ${shown(done.server)})\n`);
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    if (err instanceof RtaError) return reportError(io, err, json);
    throw err;
  } finally {
    client?.close();
  }
}
