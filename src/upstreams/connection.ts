/**
 * One upstream as rta's MCP client (the SDK's v2 Client): connected at
 * discovery and kept for calls (a stdio child started for discovery stays up,
 * so the first call pays no start), connected again on the next call after a
 * failure, no sooner than its backoff (1 s, doubling to 30 s) allows. Every
 * request has a time limit and the caller's signal. What goes wrong is said
 * in words that name nothing of the upstream's address or command.
 */
import { Client, type Transport } from "@modelcontextprotocol/client";
import type { UpstreamConfig } from "../core/configUpstreams.ts";
import { httpTransport, TooLarge } from "./httpTransport.ts";
import { UpstreamStdioTransport } from "./stdioTransport.ts";

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

  /** The connected client, connecting when there is none; refuses (Unreachable) within its backoff or on failure. */
  connected(): Promise<Client> {
    if (this.closed) return Promise.reject(new Unreachable("rta is stopping"));
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
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
