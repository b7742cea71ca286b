/**
 * Serving MCP over HTTP, from the session's start line to its end line: Bun's
 * server running the HTTP front (the checks, then the SDK's handler) until a
 * stop signal, then the calls under way finish and are recorded before the
 * end line. A remote client is told nothing of where the server keeps what it
 * serves: the deps it is given carry the redactor that says so.
 */
import { usable } from "../../core/config.ts";
import { Exit, RtaError } from "../../core/errors.ts";
import { listTokens } from "../../gate/operator/tokens.ts";
import { PgGateStore } from "../../gate/store/pgStore.ts";
import { rpcError } from "../http/answers.ts";
import { httpFront } from "../http/front.ts";
import type { SharedWatching } from "../leases.ts";
import { readPlace, type ServeContext } from "../server.ts";
import { CANCEL_GRACE_MS, finishCalls } from "./callsInFlight.ts";
import {
  endSession,
  openChannel,
  type ServeEnd,
  type ServeOptions,
  sayStopping,
  sayWhereServing,
  serverContext,
  startSession,
  untilStopped,
} from "./session.ts";

/** Where `--http` listens when it names no address. */
export const DEFAULT_HTTP_ADDRESS = "127.0.0.1:8722";

export interface HttpAddress {
  hostname: string;
  port: number;
}

export interface HttpServeOptions extends ServeOptions {
  address: HttpAddress;
  /** host names accepted in Host and Origin beside the loopback ones */
  allowHosts: string[];
}

/** "host:port", "[::1]:8722", ":8722" -> hostname and port; refuses anything else (a port past 65535 included) with core.input.invalid. */
export function parseAddress(text: string): HttpAddress {
  const m = text.match(/^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/);
  const hostname = m?.[1] ?? (m?.[2] || "127.0.0.1");
  const port = Number(m?.[3] ?? 8722);
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new RtaError(
      "core.input.invalid",
      `--http ${JSON.stringify(text)} is not HOST:PORT`,
      "e.g. --http 127.0.0.1:8722",
    );
  return { hostname, port };
}

/**
 * Serves MCP over HTTP until the process is told to stop (SIGINT, SIGTERM or
 * SIGHUP); then the process must end. Throws core.input.invalid, before
 * anything is recorded or said, when the address cannot be listened on.
 */
export async function serveHttp(o: HttpServeOptions): Promise<ServeEnd> {
  const stopSignal = o.stopSignal ?? untilStopped;
  const channel = await openChannel(o, "http");
  const ctx = serverContext(o, "http", channel?.state);
  try {
    ctx.leases = await sharedWatching(o, ctx);
  } catch (err) {
    channel?.close();
    throw err;
  }
  const front = httpFront(ctx, o.allowHosts);
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: o.address.hostname,
      port: o.address.port,
      fetch: (req, srv) => front.fetch(req, srv),
      // Bun's development page shows the source and the working directory: never, whatever NODE_ENV says.
      development: false,
      error(thrown) {
        ctx.onUnexpected?.(thrown);
        return rpcError(500, -32603, "internal error");
      },
    });
  } catch (err) {
    channel?.close();
    await ctx.leases?.close();
    throw listenRefusal(o.address, err);
  }
  // Set before the banner, so a signal as soon as it is seen still ends the session with its end line.
  startSession(o, "http");
  const stopped = stopSignal();
  const host = server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname;
  o.say(`rta mcp server listening on http://${host}:${server.port}/mcp`);
  if (noLiveToken(o))
    o.say("rta: no tokens yet, so every request is refused: make one with `rta mcp token new --agent NAME`");
  sayWhereServing(o);
  await stopped;
  // Stop taking requests, let the calls under way finish (cancelled past a grace) and be recorded, then end.
  front.stopAccepting();
  const drained = server.stop(false);
  const again = stopSignal();
  sayStopping(o, front.calls.size);
  const unstopped = await finishCalls(front.calls, again);
  await endSession(o, "http", unstopped);
  // The answers of the calls that finished are still on their way: let them go out (a session's open stream
  // lasts as long as the session, so sessions are closed first), within a bound.
  front.closeSessions();
  // the sessions' subscriptions are dropped from the store, and this replica's watchers given up to the others
  await ctx.leases?.close();
  channel?.close();
  await Promise.race([drained, Bun.sleep(CANCEL_GRACE_MS)]);
  void server.stop(true);
  return { status: Exit.ok, exit: true };
}

/**
 * On a shared (PostgreSQL) store, this replica's part in the subscriptions' leased watchers (leases.ts, loaded
 * only then); undefined on gate.db, where each connection watches its own. Refuses (core.store.unavailable) a
 * store it cannot listen on.
 */
async function sharedWatching(o: ServeOptions, ctx: ServeContext): Promise<SharedWatching | undefined> {
  // gate.db is opened where it was, not here: only a store the command line opened already is asked
  if (!(o.env?.RTA_STORE || usable(o.deps.config.current())?.store)) return undefined;
  const gate = ctx.deps.gate();
  if (!(gate instanceof PgGateStore)) return undefined;
  const { SharedWatching } = await import("../leases.ts");
  return await SharedWatching.start(gate.connectionUrl(), readPlace(ctx), ctx.session);
}

/** Whether the store holds no live token, so every request would be refused; a store in trouble is said where a call meets it. */
function noLiveToken(o: ServeOptions): boolean {
  try {
    return !listTokens(o.deps).tokens.some((t) => t.state === "live");
  } catch {
    return false;
  }
}

/**
 * Why a listen failed, said for the person who chose --http: the system's own words named a file ("ENOENT: no such
 * file or directory") for a host name that does not resolve, and every failure was hinted as a busy port.
 */
function listenRefusal(address: HttpAddress, err: unknown): RtaError {
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
