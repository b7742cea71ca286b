/**
 * A person's end of the operator channel: connects to every running
 * server's socket in the run dir (a stale one of a server that died is
 * removed), reads their events and sends them requests. `rta operator` is
 * built on it, and so is anything else that asks a person through the
 * channel:
 *
 *   const client = await OperatorClient.open(runDirOf(env, dataDir));
 *   client.onEvent((e) => ...);            // each server's hello first, then its events
 *   const replies = await client.request({ op: "approve", id });
 *   client.close();
 *
 * A run dir that is not this user's, or is open to others, is refused
 * (core.operator.unsafe): a socket there may be anyone's.
 */
import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import { RtaError } from "../core/errors.ts";
import { connect } from "../core/lazyNet.ts";
import { checkRunDir, removeIfStale, socketFiles } from "./runDir.ts";
import { type ChannelEvent, type ChannelReply, type ChannelRequest, LineSplitter } from "./wire.ts";

interface Link {
  path: string;
  socket: Socket;
  /** the server's id, once its hello came */
  server?: string;
  /** the server said it ended */
  ended?: boolean;
  /** replies waited for, by ref */
  waiting: Map<string, (reply: ChannelReply | undefined) => void>;
}

/** How long a request waits for a server's reply before that server counts as not answering. */
export const REPLY_MS = 5_000;

export class OperatorClient {
  private readonly links = new Map<string, Link>();
  private listeners: ((event: ChannelEvent) => void)[] = [];
  private gone: ((path: string, server: string | undefined) => void)[] = [];
  private refs = 0;
  private scanner: ReturnType<typeof setInterval> | undefined;

  private constructor(readonly runDir: string) {}

  /**
   * Connects to every live server in `runDir`; none is not a refusal. Refuses
   * a run dir that is not this user's or is wider than 0700 (core.operator.unsafe).
   */
  static async open(runDir: string): Promise<OperatorClient> {
    const client = new OperatorClient(runDir);
    await client.scan();
    return client;
  }

  /** The servers connected now. */
  get servers(): number {
    return this.links.size;
  }

  /** Calls `fn` with each event of every server (a server's `server` hello first). */
  onEvent(fn: (event: ChannelEvent) => void): void {
    this.listeners.push(fn);
  }

  /** Calls `fn` when a server's connection ends; `server` is left out when the server said it ended first. */
  onGone(fn: (path: string, server: string | undefined) => void): void {
    this.gone.push(fn);
  }

  /** Looks for servers started since (every `ms`), until close(). Refuses nothing. */
  follow(ms = 500): void {
    this.scanner ??= setInterval(() => void this.scan().catch(() => {}), ms);
  }

  /** Connects to the sockets not yet connected; removes a dead server's. Refuses an unsafe run dir. */
  async scan(): Promise<void> {
    if (!existsSync(this.runDir)) return;
    checkRunDir(this.runDir);
    const fresh = socketFiles(this.runDir).filter((p) => !this.links.has(p));
    await Promise.all(fresh.map((p) => this.connect(p)));
  }

  private connect(path: string): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(path);
      const link: Link = { path, socket, waiting: new Map() };
      const lines = new LineSplitter();
      let opened = false;
      socket.once("connect", () => {
        opened = true;
        this.links.set(path, link);
        resolve();
      });
      socket.on("data", (chunk: Buffer) => {
        const got = lines.push(chunk);
        if (got === undefined) return socket.destroy();
        for (const line of got) this.heard(link, line);
      });
      socket.on("error", (err: NodeJS.ErrnoException) => {
        if (!opened && err.code === "ECONNREFUSED") void removeIfStale(path);
      });
      socket.on("close", () => {
        if (!opened) return resolve();
        this.links.delete(path);
        for (const wake of link.waiting.values()) wake(undefined);
        link.waiting.clear();
        for (const fn of this.gone) fn(path, link.ended ? undefined : link.server);
      });
    });
  }

  private heard(link: Link, line: string): void {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof value !== "object" || value === null) return;
    if (typeof value.reply === "string") {
      const ref = typeof value.ref === "string" ? value.ref : "";
      const wake = link.waiting.get(ref);
      link.waiting.delete(ref);
      wake?.(value as unknown as ChannelReply);
      return;
    }
    if (value.event === "server" && typeof value.server === "string") link.server = value.server;
    if (value.event === "server_ended") link.ended = true;
    for (const fn of this.listeners) fn(value as unknown as ChannelEvent);
  }

  /**
   * Sends the request to every server connected and resolves with the
   * replies (a server that does not answer within REPLY_MS, or goes, gives
   * none). Refuses nothing.
   */
  async request(req: ChannelRequest): Promise<ChannelReply[]> {
    const all = [...this.links.values()].map(
      (link) =>
        new Promise<ChannelReply | undefined>((resolve) => {
          const ref = `r${++this.refs}`;
          const timer = setTimeout(() => {
            link.waiting.delete(ref);
            resolve(undefined);
          }, REPLY_MS);
          link.waiting.set(ref, (reply) => {
            clearTimeout(timer);
            resolve(reply);
          });
          link.socket.write(`${JSON.stringify({ ...req, ref })}\n`);
        }),
    );
    return (await Promise.all(all)).filter((r): r is ChannelReply => r !== undefined);
  }

  /** Ends every connection. Refuses nothing. */
  close(): void {
    if (this.scanner) clearInterval(this.scanner);
    this.scanner = undefined;
    for (const link of this.links.values()) link.socket.destroy();
    this.links.clear();
  }
}

/**
 * Sends one request to every running server and closes: what `rta lock` and
 * `rta grant` use to tell the servers at once. Resolves with the replies;
 * none when no server runs or the run dir is unsafe (nothing to tell). Refuses nothing.
 */
export async function tellServers(runDir: string, req: ChannelRequest): Promise<ChannelReply[]> {
  let client: OperatorClient | undefined;
  try {
    client = await OperatorClient.open(runDir);
    return client.servers === 0 ? [] : await client.request(req);
  } catch (err) {
    if (err instanceof RtaError) return [];
    throw err;
  } finally {
    client?.close();
  }
}
