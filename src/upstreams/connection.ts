/**
 * One upstream as rta's MCP client (the SDK's v2 Client): connected at
 * discovery and kept for calls (a stdio child started for discovery stays up,
 * so the first call pays no start), connected again on the next call after a
 * failure, no sooner than its backoff (1 s, doubling to 30 s) allows. Every
 * request has a time limit and the caller's signal. What goes wrong is said
 * in words that name nothing of the upstream's address or command.
 *
 * A tool's call on a stdio connection in the 2025-11-25 era is sent and
 * answered by rta itself (`callTool`), with the bytes the SDK's client would
 * send (its next id), its result checked once (callResult.ts); the SDK's
 * client keeps the handshake, discovery and everything else.
 */
import { Client, ProtocolError, type Transport } from "@modelcontextprotocol/client";
import type { UpstreamConfig } from "../core/configUpstreams.ts";
import { checkedCallResult } from "./callResult.ts";
import { httpTransport, TooLarge } from "./httpTransport.ts";
import { type Answered, UpstreamStdioTransport } from "./stdioTransport.ts";

export interface ConnectionOptions {
  /** the most bytes one message from the upstream may take */
  maxMessage: number;
  /** the operator's home, the child's HOME */
  home: string;
  /** how long connecting (and each page of discovery) may take */
  connectMs: number;
  /** how long a call may take */
  callMs: number;
  now?: () => number;
}

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/** A failure of the connection, not of the tool: said as upstream.unavailable. */
export class Unreachable extends Error {
  constructor(
    message: string,
    readonly tooLarge?: number,
    /** refused within the backoff, with no connection tried */
    readonly backingOff = false,
    /** the request timed out on a connection that may still serve others */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = "Unreachable";
  }
}

export class UpstreamConnection {
  private client: Client | undefined;
  private transport: (Transport & { kill?: () => void }) | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  private retryAt = 0;
  private closed = false;
  /** the size of a message cut at the bound, since it was last asked */
  private cut: number | undefined;

  constructor(
    readonly config: UpstreamConfig,
    private readonly options: ConnectionOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * The connected client, connecting when there is none; refuses (Unreachable)
   * within its backoff or on failure, and what `beforeStart` throws: it is
   * called before a connection is started (and before the backoff is looked
   * at), never while one is up or being made.
   */
  connected(beforeStart?: () => void): Promise<Client> {
    if (this.closed) return Promise.reject(new Unreachable("rta is stopping"));
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    try {
      beforeStart?.();
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.now() < this.retryAt)
      return Promise.reject(new Unreachable("it failed a moment ago; rta tries it again shortly", undefined, true));
    this.connecting = this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const t = this.config.transport;
    const transport =
      t.kind === "stdio"
        ? new UpstreamStdioTransport({
            command: t.command,
            env: t.env,
            home: this.options.home,
            maxMessage: this.options.maxMessage,
          })
        : httpTransport(t.url, t.headers, this.options.maxMessage, (size) => {
            // an event past the bound on the stream a GET opened answers no request of rta's: the connection ends,
            // as a stdio one does, so a request waiting for an answer there fails now, saying why
            this.cut = size;
            void transport.close().catch(() => {});
          });
    const client = new Client({ name: "rta", version: "1" }, { capabilities: {} });
    this.cut = undefined;
    // a stdio message past the bound ends the connection: the request it answered fails as closed, and this says why
    transport.onerror = (err) => {
      if (err instanceof TooLarge) this.cut = err.size;
    };
    try {
      await client.connect(transport, { timeout: this.options.connectMs });
    } catch (err) {
      void transport.close().catch(() => {});
      this.failed();
      throw unreachable(err, this.takeCut());
    }
    client.onclose = () => {
      if (this.client === client) {
        this.client = undefined;
        this.transport = undefined;
        this.failed();
      }
    };
    this.transport = transport;
    this.client = client;
    this.failures = 0;
    return client;
  }

  /**
   * Calls `tool` with `args` under `signal` and `timeoutMs`, connecting first
   * when there is no connection (`beforeStart` as `connected` takes it), and
   * gives its result as the upstream sent it. Refuses as the SDK's client
   * does: the upstream's error answer as a ProtocolError, an invalid result,
   * a closed connection or a timeout (Unreachable, timedOut) as an Error.
   */
  async callTool(
    tool: { name: string; inputSchema: { type: "object" } },
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
    beforeStart?: () => void,
  ): Promise<Record<string, unknown>> {
    const client = await this.connected(beforeStart);
    const transport = this.transport;
    // the SDK's client's own counter of request ids: the next is this request's, so no two requests share one
    const ids = client as unknown as { _requestMessageId?: unknown };
    if (
      transport instanceof UpstreamStdioTransport &&
      client.getProtocolEra() === "legacy" &&
      typeof ids._requestMessageId === "number"
    ) {
      const id = ids._requestMessageId;
      ids._requestMessageId = id + 1;
      const message = {
        method: "tools/call",
        params: { name: tool.name, arguments: args },
        jsonrpc: "2.0" as const,
        id,
      };
      const answer = await exchanged(transport, message, signal, timeoutMs);
      if (answer.error !== undefined)
        throw ProtocolError.fromError(answer.error.code, answer.error.message, answer.error.data);
      return checkedCallResult(answer.result);
    }
    // the definition discovery found: the client would otherwise list the tools again to check the answer
    const options = { signal, timeout: timeoutMs, toolDefinition: tool };
    return (await client.callTool({ name: tool.name, arguments: args }, options)) as Record<string, unknown>;
  }

  /** The size of a message the transport cut at the bound since the last ask, if one was; refuses nothing. */
  takeCut(): number | undefined {
    const cut = this.cut;
    this.cut = undefined;
    return cut;
  }

  /** Marks a failure: the next connection waits out the backoff. */
  failed(): void {
    const wait = Math.min(FIRST_BACKOFF_MS * 2 ** this.failures, MAX_BACKOFF_MS);
    this.failures += 1;
    this.retryAt = this.now() + wait;
  }

  /**
   * Drops the connection after a failure of the transport (an answer past
   * the bound, a child gone): the next call connects again after the backoff.
   */
  drop(): void {
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (transport) void transport.close().catch(() => {});
    this.failed();
  }

  /** Stops the connection (and a stdio child's process group) for good; refuses nothing. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    await client?.close().catch(() => {});
  }

  /** For a process about to exit: kills a stdio child's group at once; refuses nothing. */
  kill(): void {
    this.closed = true;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    // a stdio child's group is killed; an HTTP stream held open (its GET for notifications) is aborted
    if (transport?.kill) transport.kill();
    else void transport?.close().catch(() => {});
  }
}

/**
 * `message` sent on `transport` and its answer, under `signal` and a time
 * limit: either stops the wait and tells the upstream (notifications/cancelled),
 * as the SDK's client does. Refuses (rejects) as `exchange` does, when
 * cancelled, and with Unreachable (timedOut) out of time.
 */
function exchanged(
  transport: UpstreamStdioTransport,
  message: Parameters<UpstreamStdioTransport["exchange"]>[0],
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Answered> {
  if (signal.aborted) return Promise.reject(new Error("the call was cancelled"));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  return new Promise<Answered>((resolve, reject) => {
    const stop = (reason: string, err: Error) => {
      transport.forget(message.id);
      const params = { requestId: message.id, reason };
      transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params }).catch(() => {});
      reject(err);
    };
    timer = setTimeout(
      () => stop("Request timed out", new Unreachable("it did not answer in time", undefined, false, true)),
      timeoutMs,
    );
    onAbort = () => stop(String(signal.reason), new Error("the call was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    transport.exchange(message).then(resolve, reject);
  }).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  });
}

/** What went wrong with a connection, in words that name nothing of where the upstream is. */
export function unreachable(err: unknown, tooLarge?: number): Unreachable {
  if (err instanceof Unreachable) return err;
  if (err instanceof TooLarge || tooLarge !== undefined)
    return new Unreachable("it sent a message past rta's bound", (err as TooLarge).size ?? tooLarge);
  const text = String((err as Error)?.message ?? err);
  if ((err as { code?: unknown })?.code === "REQUEST_TIMEOUT" || /timed? ?out/i.test(text))
    return new Unreachable("it did not answer in time", undefined, false, true);
  if (/\b401\b|\b403\b|unauthori[sz]ed|forbidden/i.test(text)) return new Unreachable("it refused rta's credentials");
  // a stdio command that does not start: the likeliest slip of a new config (a program off rta's fixed PATH)
  const code = (err as { code?: unknown })?.code;
  if (code === "ENOENT")
    return new Unreachable(
      "its command was not found: give the program's absolute path, as rta runs it with PATH=/usr/local/bin:/usr/bin:/bin",
    );
  if (code === "EACCES") return new Unreachable("its command could not be run: it is not executable");
  return new Unreachable("it could not be reached, or stopped");
}
