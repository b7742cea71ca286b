/**
 * One server's end of the operator channel: a Unix socket of its own in the
 * run dir (runDir.ts), mode 0600, that only a process of this user may talk
 * to (SO_PEERCRED, checked on every connection: peer.ts). It sends every
 * connection the server's events as JSON lines (wire.ts) and takes a
 * person's requests: answer a pending consent, end a session, lock an agent.
 * What the server is doing is kept in `ServerState` (state.ts); this file is
 * the socket.
 */
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Socket, UnixSocketListener } from "bun";
import { RtaError } from "../core/errors.ts";
import { Connection } from "./connections.ts";
import { peerUid } from "./peer.ts";
import { ensureRunDir, privateSocket, removeIfStale, socketFiles } from "./runDir.ts";
import type { ServerState } from "./state.ts";
import { asRequest, type ChannelEvent, type ChannelReply, type ChannelRequest, LineSplitter } from "./wire.ts";

interface Conn {
  lines: LineSplitter;
  conn: Connection;
}

export type { ServerState };

/** What a server's channel is opened with. */
export interface ChannelOptions {
  /** the server's session id: the socket is `<run dir>/<session>.sock` */
  session: string;
  runDir: string;
  /** one line for the operator (stderr), as the server says things */
  say: (line: string) => void;
  state: ServerState;
}

/** A server's listening channel; `close()` ends it and removes its socket. */
export class OperatorChannel {
  private readonly conns = new Set<Conn>();
  private listener: UnixSocketListener<Conn> | undefined;
  readonly path: string;

  private constructor(
    private readonly o: ChannelOptions,
    readonly state: ServerState,
  ) {
    this.path = join(o.runDir, `${o.session}.sock`);
    state.broadcast = (event) => this.broadcast(event);
    state.watched = () => this.conns.size > 0;
  }

  /**
   * Opens the channel: makes the run dir safely, removes the sockets of servers that died, listens. A dir that is
   * not safe, or a socket that cannot be made, is said through `say` and the server serves without a channel:
   * undefined. Refuses nothing.
   */
  static async open(o: ChannelOptions): Promise<OperatorChannel | undefined> {
    try {
      ensureRunDir(o.runDir);
      await Promise.all(socketFiles(o.runDir).map(removeIfStale));
      const channel = new OperatorChannel(o, o.state);
      channel.listen();
      return channel;
    } catch (err) {
      const why = err instanceof RtaError ? `${err.message} (${err.code})` : (err as Error).message;
      o.say(`rta: no operator channel for this server: ${why}`);
      return undefined;
    }
  }

  private listen(): void {
    const state = this.state;
    this.listener = Bun.listen<Conn>({
      unix: this.path,
      socket: {
        open: (socket) => {
          const uid = process.getuid?.();
          // a person's channel: another user's process (an agent run as its own user) is refused unheard
          if (uid === undefined || peerUid((socket as unknown as { fd: number }).fd) !== uid) {
            socket.terminate();
            return;
          }
          const c: Conn = {
            lines: new LineSplitter(),
            conn: new Connection(socket as Socket<unknown>, (count) =>
              JSON.stringify(state.stamp({ event: "dropped", count })),
            ),
          };
          socket.data = c;
          this.conns.add(c);
          c.conn.send(JSON.stringify(state.hello()), true);
        },
        data: (socket, bytes) => {
          const c = socket.data;
          if (!c) return;
          const lines = c.lines.push(bytes);
          if (lines === undefined) {
            this.conns.delete(c);
            socket.end();
            return;
          }
          for (const line of lines) if (line.trim() !== "") void this.answer(c, line);
        },
        drain: (socket) => socket.data?.conn.drain(),
        close: (socket) => {
          if (socket.data) this.conns.delete(socket.data);
        },
        error: (socket) => {
          if (socket.data) this.conns.delete(socket.data);
        },
      },
    });
    privateSocket(this.path);
  }

  private async answer(c: Conn, line: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const req = asRequest(parsed);
    let reply: ChannelReply;
    if (req === undefined) {
      reply = {
        reply: "invalid",
        server: this.o.session,
        ok: false,
        error: { code: "core.input.invalid", message: "not a request this channel takes" },
      };
    } else reply = await this.state.handle(req as ChannelRequest);
    c.conn.send(JSON.stringify(reply), true);
  }

  /** Sends one event to every connection, dropped for a connection past its bound. Refuses nothing. */
  broadcast(event: ChannelEvent): void {
    if (this.conns.size === 0) return;
    const line = JSON.stringify(event);
    for (const c of this.conns) c.conn.send(line);
  }

  /** Says the server ended, stops listening and removes the socket. Refuses nothing. */
  close(): void {
    this.broadcast(this.state.stamp({ event: "server_ended" }));
    for (const c of this.conns) c.conn.socket.end();
    this.conns.clear();
    this.listener?.stop(true);
    this.listener = undefined;
    try {
      unlinkSync(this.path);
    } catch {
      // gone already
    }
  }
}
