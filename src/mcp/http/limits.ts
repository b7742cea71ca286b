/**
 * What an HTTP request may hold while it is served. Nothing here is spent
 * before the request's Host, Origin and token have passed (they are read
 * from the headers alone), so a caller with no token holds no byte of body
 * and no slot: it is answered and its connection closed.
 *
 * After the token, a request reserves its body's bytes against a total for
 * the whole server and a share for its agent, and a slot among its agent's
 * requests in flight; it gives them back when its answer has been sent or
 * its client has gone. Past the server's total the answer is 503, since no
 * one caller is to blame; past an agent's share it is 429, since that agent
 * is. Both carry Retry-After.
 */
import { PAST_COUNT_BYTES, PAST_COUNT_MESSAGES, REQUEST_LIMIT_BYTES, REQUESTS_IN_FLIGHT } from "../requestValues.ts";

/**
 * Bodies held at once across every request: sixteen at the limit. Real calls
 * are a few KiB, so this is reached only by someone sending big bodies on
 * purpose, and it keeps what they can make the server hold near 64 MiB.
 */
export const IN_FLIGHT_BODY_BYTES = 64 * 1024 * 1024;
/** One agent's share of the total, so that one token cannot fill it and lock every other agent out. */
export const AGENT_BODY_BYTES = 16 * 1024 * 1024;
/**
 * The whole body must arrive within this. An MCP request is a few KiB and
 * arrives in one packet; a body at the 4 MiB limit needs about 2.3 Mbit/s to
 * make it. Bun's idle timeout cuts a body that stops, but not one that
 * trickles a little at a time, which would hold its reservation for good.
 */
export const BODY_DEADLINE_MS = 15_000;
/** What a refused caller is told to wait, in seconds: long enough for calls in flight to end. */
export const RETRY_AFTER_SECONDS = 5;

/** Why a request was not let in, as the HTTP status to answer with. */
export type Refusal = { status: 429 | 503; message: string };

interface AgentUse {
  requests: number;
  bytes: number;
  /**
   * POSTs let in past the count (PAST_COUNT_MESSAGES, each PAST_COUNT_BYTES at
   * most), each to carry no request: a cancellation above all, or an answer to
   * the server's own request. One that turns out to hold a request is refused
   * 429 as it would have been.
   */
  past: number;
}

/** The bytes and requests in flight: reserved before a body is read, given back when the request is done. */
export class InFlight {
  private bytes = 0;
  private readonly agents = new Map<string, AgentUse>();

  constructor(
    private readonly totalBytes = IN_FLIGHT_BODY_BYTES,
    private readonly agentBytes = AGENT_BODY_BYTES,
    private readonly agentRequests = REQUESTS_IN_FLIGHT,
  ) {}

  /** Bytes held across all requests, for tests and benchmarks. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Takes a request slot for the agent; the Ticket gives it back. Refused past the agent's count. */
  admit(agent: string): Ticket | Refusal {
    const use = this.agents.get(agent) ?? { requests: 0, bytes: 0, past: 0 };
    if (use.requests >= this.agentRequests) {
      if (use.past >= PAST_COUNT_MESSAGES) return this.tooMany();
      use.past++;
      this.agents.set(agent, use);
      return new Ticket(this, agent, true);
    }
    use.requests++;
    this.agents.set(agent, use);
    return new Ticket(this, agent);
  }

  /** Said of a POST past the agent's requests in flight. */
  tooMany(): Refusal {
    return { status: 429, message: `this agent already has ${this.agentRequests} requests in flight` };
  }

  /** @internal Reserves bytes for an admitted request; a refusal leaves nothing reserved. */
  reserve(agent: string, n: number): Refusal | undefined {
    const use = this.agents.get(agent);
    if (!use) throw new Error("reserve without admit");
    if (use.bytes + n > this.agentBytes)
      return { status: 429, message: "this agent's requests in flight already hold as much body as it may" };
    if (this.bytes + n > this.totalBytes)
      return { status: 503, message: "the server is holding as many request bodies as it may" };
    use.bytes += n;
    this.bytes += n;
    return undefined;
  }

  /** @internal */
  release(agent: string, bytes: number, past = false): void {
    const use = this.agents.get(agent);
    if (!use) return;
    use.bytes -= bytes;
    if (past) use.past--;
    else use.requests--;
    this.bytes -= bytes;
    if (use.requests === 0 && use.past === 0) this.agents.delete(agent);
  }
}

/** One admitted request's hold: its slot and the bytes reserved for its body. Given back once. */
export class Ticket {
  private reserved = 0;
  private done = false;

  constructor(
    private readonly inFlight: InFlight,
    private readonly agent: string,
    /** let in past the agent's count: its body may hold no request, and PAST_COUNT_BYTES at most */
    readonly past = false,
  ) {}

  reserve(n: number): Refusal | undefined {
    if (this.past && this.reserved + n > PAST_COUNT_BYTES) return this.tooMany();
    const refused = this.inFlight.reserve(this.agent, n);
    if (!refused) this.reserved += n;
    return refused;
  }

  /** Said of a POST past the agent's requests in flight. */
  tooMany(): Refusal {
    return this.inFlight.tooMany();
  }

  release(): void {
    if (this.done) return;
    this.done = true;
    this.inFlight.release(this.agent, this.reserved, this.past);
  }
}

export type BodyOutcome =
  | { kind: "read"; body: Uint8Array }
  | { kind: "toolarge" }
  | { kind: "late" }
  | { kind: "refused"; refusal: Refusal }
  | { kind: "gone" };

/**
 * Reads a request body up to the limit as it streams, reserving its bytes on
 * the ticket first: all of a declared Content-Length at once, else chunk by
 * chunk. Stops at the limit, at a refused reservation, at the deadline, or
 * when the client goes away, and cancels the rest unread.
 */
export async function readBody(req: Request, ticket: Ticket, deadlineMs = BODY_DEADLINE_MS): Promise<BodyOutcome> {
  if (!req.body) return { kind: "read", body: new Uint8Array(0) };
  const header = req.headers.get("content-length");
  const declared = header === null ? Number.NaN : Number(header);
  if (declared > REQUEST_LIMIT_BYTES) return { kind: "toolarge" };
  const upfront = Number.isInteger(declared) && declared >= 0;
  if (upfront) {
    const refused = ticket.reserve(declared);
    if (refused) return { kind: "refused", refusal: refused };
  }
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
  });
  const stop = (outcome: BodyOutcome): BodyOutcome => {
    reader.cancel().catch(() => {});
    return outcome;
  };
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "late") return stop({ kind: "late" });
      if (next.done) break;
      size += next.value.length;
      if (size > REQUEST_LIMIT_BYTES || (upfront && size > declared)) return stop({ kind: "toolarge" });
      if (!upfront) {
        const refused = ticket.reserve(next.value.length);
        if (refused) return stop({ kind: "refused", refusal: refused });
      }
      parts.push(next.value);
    }
  } catch {
    return { kind: "gone" };
  } finally {
    clearTimeout(timer);
  }
  const body = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    body.set(p, off);
    off += p.length;
  }
  return { kind: "read", body };
}
