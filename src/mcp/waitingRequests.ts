/**
 * The requests a stdio session read while REQUESTS_IN_FLIGHT were being
 * served, in order, each with the characters it was read as. Up to
 * PAST_COUNT_MESSAGES of them, holding up to PAST_COUNT_BYTES characters, wait
 * their turn while reading goes on; past either, the transport reads no more
 * until a place is free, so a cancellation behind them can still be read. Over
 * HTTP the same agent has as many POSTs past its count (http/limits.ts).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { PAST_COUNT_BYTES, PAST_COUNT_MESSAGES } from "./requestValues.ts";

type Request = JSONRPCMessage & { id: string | number };

export class WaitingRequests {
  private queue: { request: Request; chars: number }[] = [];
  private chars = 0;

  get length(): number {
    return this.queue.length;
  }

  /** Adds a request read as `chars` characters, at the end. */
  push(request: Request, chars: number): void {
    this.queue.push({ request, chars });
    this.chars += chars;
  }

  /** The request that waited longest, taken out; undefined when none waits. */
  shift(): Request | undefined {
    const first = this.queue.shift();
    if (first) this.chars -= first.chars;
    return first?.request;
  }

  /** Takes out every request waiting under `id` (its client cancelled it): it is never served. */
  drop(id: string | number): void {
    const kept = this.queue.filter((w) => w.request.id !== id);
    if (kept.length === this.queue.length) return;
    this.queue = kept;
    this.chars = kept.reduce((sum, w) => sum + w.chars, 0);
  }

  /** Forgets every waiting request: a stopping server starts nothing new. */
  clear(): void {
    this.queue = [];
    this.chars = 0;
  }

  /** True when no more may be read until a place is free. */
  full(): boolean {
    return this.queue.length >= PAST_COUNT_MESSAGES || this.chars >= PAST_COUNT_BYTES;
  }
}
