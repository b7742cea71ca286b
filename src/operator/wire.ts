/**
 * What the operator channel says, one JSON object a line, both ways: the
 * events a server sends every connection, the requests a person's client
 * sends, and the replies. A line past MAX_LINE bytes ends the connection.
 */

/** The longest line either end takes; a longer one ends the connection. */
export const MAX_LINE = 64 * 1024;

/** What a server says of itself, first on every connection. */
export interface ServerHello {
  event: "server";
  server: string;
  pid: number;
  transport: "stdio" | "http" | "cli";
  agent?: string;
  started: string;
  /** the sessions open now */
  sessions: { session: string; agent: string }[];
  /** the consents waiting for an answer now */
  pending: ConsentPending[];
  /** the calls under way now */
  calls: CallStarted[];
}

export interface CallStarted {
  event: "call_started";
  server: string;
  call: string;
  agent: string;
  tool: string;
  /** the arguments as a person is shown them: a secret input's value masked, each long value cut */
  args: Record<string, unknown>;
  time: string;
}

export interface CallEnded {
  event: "call_ended";
  server: string;
  call: string;
  agent: string;
  tool: string;
  /** "ok", or the code the call ended with */
  outcome: string;
  duration_ms: number;
  /** the grant the call spent a use of */
  grant?: string;
  time: string;
}

export interface ConsentPending {
  event: "consent_pending";
  server: string;
  /** what `rta operator approve ID` takes */
  id: string;
  kind: "consent" | "grant";
  agent: string;
  tool: string;
  capability: string;
  args: Record<string, unknown>;
  message: string;
  choices?: string[];
  expires: string;
  time: string;
}

export type ChannelEvent =
  | ServerHello
  | CallStarted
  | CallEnded
  | ConsentPending
  | { event: "consent_answered"; server: string; id: string; answer: string; by: string; time: string }
  | { event: "session_started" | "session_ended"; server: string; session: string; agent: string; time: string }
  | { event: "lock_changed" | "grant_changed"; server: string; agent?: string; time: string }
  | {
      event: "call_cancelled";
      server: string;
      call: string;
      agent: string;
      tool: string;
      why: string;
      time: string;
    }
  | { event: "dropped"; server: string; count: number; time: string }
  | { event: "server_ended"; server: string; time: string };

/** What a person's client asks a server. `ref` is echoed in the reply. */
export type ChannelRequest =
  | { op: "approve"; id: string; choice?: string; ref?: string }
  | { op: "deny"; id: string; ref?: string }
  | { op: "end_session"; session: string; ref?: string }
  | { op: "lock"; agent: string; ref?: string }
  | { op: "changed"; what: "lock" | "grant"; agent?: string; ref?: string };

/** A server's answer to one request. */
export interface ChannelReply {
  reply: ChannelRequest["op"] | "invalid";
  server: string;
  ok: boolean;
  ref?: string;
  /** for a lock: how many calls under way were cancelled and sessions ended */
  cancelled?: number;
  ended?: number;
  error?: { code: string; message: string };
}

/** Checks one parsed line is a request this channel takes; undefined when it is not. Refuses nothing. */
export function asRequest(value: unknown): ChannelRequest | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const str = (k: string) => typeof v[k] === "string" && (v[k] as string).length > 0 && (v[k] as string).length < 256;
  if (v.ref !== undefined && typeof v.ref !== "string") return undefined;
  if ((v.op === "approve" || v.op === "deny") && str("id")) {
    if (v.choice !== undefined && typeof v.choice !== "string") return undefined;
    return v as unknown as ChannelRequest;
  }
  if (v.op === "end_session" && str("session")) return v as unknown as ChannelRequest;
  if (v.op === "lock" && str("agent")) return v as unknown as ChannelRequest;
  if (v.op === "changed" && (v.what === "lock" || v.what === "grant")) return v as unknown as ChannelRequest;
  return undefined;
}

/**
 * Splits bytes into lines as they come, each at most MAX_LINE bytes. `push`
 * returns the whole lines so far, or undefined once a line is too long.
 */
export class LineSplitter {
  private held: Buffer[] = [];
  private heldBytes = 0;

  /** The whole lines in what came so far (without their newline); undefined when a line passed MAX_LINE. */
  push(chunk: Uint8Array): string[] | undefined {
    const lines: string[] = [];
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10)) {
      if (this.heldBytes + nl > MAX_LINE) return undefined;
      lines.push(Buffer.concat([...this.held, buf.subarray(0, nl)]).toString("utf8"));
      this.held = [];
      this.heldBytes = 0;
      buf = buf.subarray(nl + 1);
    }
    if (this.heldBytes + buf.length > MAX_LINE) return undefined;
    if (buf.length > 0) {
      this.held.push(Buffer.from(buf));
      this.heldBytes += buf.length;
    }
    return lines;
  }
}

/**
 * What a server's front hands its channel: how to end the sessions it holds.
 * `ofAgent` is the hook a locked agent's other holdings are ended through
 * (its subscriptions, once a server has them, belong here too).
 */
export interface SessionEnder {
  /** ends one session by id; false when this server holds none by that id */
  one(session: string): boolean;
  /** ends every session of the agent (and what else it holds open); how many */
  ofAgent(agent: string): number;
}
