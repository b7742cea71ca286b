/**
 * The people connected to one server's channel: each connection's writes
 * queued to a bound, so a reader that does not keep up never holds the
 * server up. Past the bound its events are dropped and counted, and once it
 * has caught up it is told how many it missed. Replies are never dropped, so
 * one that leaves its replies unread past twice the bound (a flood of
 * requests, each a reply) is ended, rather than queued without end.
 */
import type { Socket } from "bun";

/** What one connection may have waiting to be written before its events are dropped. */
export const QUEUE_BYTES = 1024 * 1024;

/** One person's connection: its socket, what waits to be written, what was dropped. */
export class Connection {
  private queue: Buffer[] = [];
  private queued = 0;
  /** events dropped since the last time it was told */
  dropped = 0;
  /** ended for leaving its replies unread: nothing more is queued */
  private ended = false;

  constructor(
    readonly socket: Socket<unknown>,
    private readonly dropNote: (count: number) => string,
  ) {}

  /**
   * Sends one line (the newline added): written now, queued, or dropped past QUEUE_BYTES; a line that must be sent
   * past twice that ends the connection instead. Refuses nothing.
   */
  send(line: string, mustSend = false): void {
    if (this.ended) return;
    const bytes = Buffer.from(`${line}\n`);
    if (!mustSend && this.queued + bytes.length > QUEUE_BYTES) {
      this.dropped++;
      return;
    }
    if (this.queued + bytes.length > 2 * QUEUE_BYTES) {
      this.ended = true;
      this.queue = [];
      this.queued = 0;
      this.socket.terminate();
      return;
    }
    if (this.queued > 0) {
      this.queue.push(bytes);
      this.queued += bytes.length;
      return;
    }
    const wrote = this.socket.write(bytes);
    if (wrote < bytes.length) {
      const rest = bytes.subarray(Math.max(wrote, 0));
      this.queue.push(rest);
      this.queued += rest.length;
    }
  }

  /** Writes what waits, as the socket takes it; says what was dropped once all is written. Refuses nothing. */
  drain(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0] as Buffer;
      const wrote = this.socket.write(head);
      if (wrote < head.length) {
        this.queue[0] = head.subarray(Math.max(wrote, 0));
        this.queued -= Math.max(wrote, 0);
        return;
      }
      this.queue.shift();
      this.queued -= head.length;
    }
    if (this.dropped > 0) {
      const count = this.dropped;
      this.dropped = 0;
      this.send(this.dropNote(count), true);
    }
  }
}
