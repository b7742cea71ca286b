/**
 * MCP over stdio with the request bound. The SDK's own stdio transport splits
 * on newlines and holds up to 10 MB of a line; this one follows the JSON
 * grammar (JsonFramer), so a message spread across lines is measured whole,
 * and a message past 4 MiB ends the session with the limit named on stderr.
 * Its id cannot be known without holding it, and a request that was dropped
 * would be a call its client waits on for good, so the session ends instead.
 * A message that stops being JSON before that is answered with a parse error
 * (-32700, id null) and dropped, and the session reads on from the next line.
 * JSON that is not a JSON-RPC message is answered -32600, with the request's
 * id when one can be read.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { deserializeMessage } from "@modelcontextprotocol/server";
import { callBegins, callEnds, lap } from "../core/profile.ts";
import type { DirectAnswers } from "./directAnswers.ts";
import { JsonFramer } from "./jsonFramer.ts";
import { answerId, cancelledId, isListen, isRequest, readableId } from "./messageKinds.ts";
import { REQUEST_LIMIT_BYTES, REQUEST_VALUE_LIMIT, REQUESTS_IN_FLIGHT, TOO_MANY_VALUES } from "./requestValues.ts";
import { type ByteSource, isByteSource, nodeSource } from "./stdinSource.ts";
import { WaitingRequests } from "./waitingRequests.ts";

/** JSON-RPC's code for text that is not JSON. */
const PARSE_ERROR = -32700;
/** JSON-RPC's code for JSON that is not a JSON-RPC message. */
const INVALID_REQUEST = -32600;
/** Said of a request whose id is that of a request still being served. */
const ID_IN_USE = "the request's id is that of a request still being served";

export interface StdioStreams {
  /** the client's bytes: the process's stdin (stdinSource) or a Node stream */
  input: ByteSource | NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** told why the session ended, when it ended on a limit */
  say: (line: string) => void;
  /** answers the tool calls it can answer exactly as the SDK would, before the SDK sees them */
  direct?: DirectAnswers;
}

export class BoundedStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;

  /** true once a request past the limit ended the session */
  endedOnLimit = false;
  private closed = false;
  /** no more requests are read: the server is stopping */
  private stopped = false;
  /** set while the client has answers it has not read */
  private drained: Promise<void> | undefined;
  /** ends that wait: the client read, or the session ended */
  private endWait: (() => void) | undefined;
  /** requests handed on and not yet answered, by id */
  private readonly unanswered = new Set<string | number>();
  private inFlight = 0;
  /** requests read while REQUESTS_IN_FLIGHT were being served, in order */
  private readonly waiting = new WaitingRequests();
  private readonly framer: JsonFramer;
  private readonly input: ByteSource;
  private readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly streams: StdioStreams,
    limit = REQUEST_LIMIT_BYTES,
  ) {
    this.input = isByteSource(streams.input) ? streams.input : nodeSource(streams.input);
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.framer = new JsonFramer(
      limit,
      (frame, values) => {
        if (frame.kind === "malformed") return this.answerError(null, PARSE_ERROR, "Parse error");
        // Counted by the framer as it read the bytes: a request past the bound is refused before it is parsed.
        if (values > REQUEST_VALUE_LIMIT) return this.invalidRequest(frame.text, TOO_MANY_VALUES);
        lap("stdio framing");
        let message: JSONRPCMessage;
        try {
          message = this.streams.direct?.parse(frame.text) ?? deserializeMessage(frame.text);
        } catch {
          return this.invalidRequest(frame.text);
        }
        lap("SDK message parse");
        this.deliver(message, frame.text.length);
      },
      () => {
        this.endedOnLimit = true;
        this.streams.say(
          `rta: a request was larger than the ${limit / 1024 / 1024} MiB limit; ending the session (send smaller calls)`,
        );
        void this.close();
      },
    );
  }

  /** Resolves when the session has ended: stdin closed (its answers still written until close()), a limit passed, or close() was called. */
  ended(): Promise<void> {
    return this.done;
  }

  async start(): Promise<void> {
    this.input.start({ data: this.onData, end: this.onEnd, error: this.onStreamError });
    this.streams.output.on("error", this.onStreamError);
  }

  /**
   * Reads no more requests but keeps answering: a server told to stop lets
   * the calls under way finish and send their answers before it closes.
   */
  stopReading(): void {
    this.stopped = true;
    this.waiting.clear(); // not started: a stopping server starts nothing new
    this.input.stop();
  }

  private onData = (chunk: Uint8Array) => {
    callBegins();
    this.framer.push(chunk);
  };

  /**
   * The client sent all it will: nothing waiting starts, as for a server told to stop, and the session is said to
   * have ended (ended()), the transport still answering: whoever awaits it lets the calls that are over be
   * answered, then closes it, cancelling the rest.
   */
  private onEnd = () => {
    this.framer.end();
    this.stopReading();
    this.resolveDone();
  };

  /** A stdin that fails, or a client that stopped reading for good (its end of stdout closed): the session ends. */
  private onStreamError = (err: Error) => {
    this.onerror?.(err);
    void this.close();
  };

  /** JSON that is not a JSON-RPC message: answered with the request's id when one can be read (messageKinds.ts). */
  private invalidRequest(text: string, why = "Invalid Request"): void {
    this.answerError(readableId(text), INVALID_REQUEST, why);
  }

  /**
   * Hands a message on. A request waits while REQUESTS_IN_FLIGHT are being
   * served, and no more is read once enough wait (WaitingRequests);
   * notifications and the client's answers to the server's
   * own requests never wait, or a call asking the client something could not
   * finish. A request the client cancels is never answered (the SDK drops its
   * answer), so the cancellation frees its place, as the SDK's own stdio
   * counts a request settled by one; one still waiting is dropped unserved.
   */
  private deliver(message: JSONRPCMessage, chars: number): void {
    if (!isRequest(message)) {
      this.onmessage?.(message);
      const cancelled = cancelledId(message);
      if (cancelled === undefined) return;
      this.dropWaiting(cancelled);
      this.streams.direct?.cancelled(cancelled, (message as { params?: { reason?: unknown } }).params?.reason);
      this.answered(cancelled);
      return;
    }
    // a 2026-07-28 listen is answered only when its subscription ends: it holds no place among the requests served,
    // or 32 of them would stop the session (the SDK's entry bounds how many a connection opens)
    if (isListen(message)) {
      if (!this.streams.direct?.take(message, this.answerFrame)) this.onmessage?.(message);
      return;
    }
    if (this.inFlight >= REQUESTS_IN_FLIGHT || this.waiting.length > 0) {
      this.waiting.push(message, chars);
      if (this.waiting.full()) this.input.pause();
      return;
    }
    this.serve(message);
  }

  /**
   * A request whose id is that of one being served is answered -32600, not
   * served: the SDK keeps one cancel per id, the latest, so a cancellation
   * would free a place while the other call ran on, and a second one the
   * other's place too, letting calls past REQUESTS_IN_FLIGHT. A client may
   * not reuse an id in a session anyway.
   */
  private serve(request: JSONRPCMessage & { id: string | number }): void {
    if (this.unanswered.has(request.id)) {
      this.answerError(request.id, INVALID_REQUEST, ID_IN_USE);
      return;
    }
    this.inFlight++;
    this.unanswered.add(request.id);
    lap("in-flight accounting");
    if (this.streams.direct?.take(request, this.answerFrame)) return;
    this.onmessage?.(request);
  }

  /** An answer went out: the next waiting request is served, and reading goes on once few enough wait. */
  private answered(id: string | number): void {
    if (!this.unanswered.delete(id)) return;
    this.inFlight--;
    while (this.inFlight < REQUESTS_IN_FLIGHT && this.waiting.length > 0 && !this.closed)
      this.serve(this.waiting.shift() as JSONRPCMessage & { id: string | number });
    this.resumeReading();
  }

  /** The waiting requests under a cancelled id are never served: their client waits for no answer. */
  private dropWaiting(id: string | number): void {
    this.waiting.drop(id);
    this.resumeReading();
  }

  /** Reads on, unless the session is over or stopping, answers wait to be read, or too many requests wait their turn. */
  private resumeReading(): void {
    if (this.closed || this.stopped || this.drained || this.waiting.full()) return;
    this.input.resume();
  }

  /** The server's message: an answer to a request it was handed frees that request's place. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    lap("SDK result checks");
    // The SDK hands over the answer as an object: its text (the result, made JSON once by the server) is a string
    // in it, so the frame is JSON of the whole, made once here, and written once.
    const frame = `${JSON.stringify(message)}\n`;
    lap("answer frame JSON");
    const written = this.streams.output.write(frame);
    callEnds("answer written");
    const id = answerId(message);
    if (id !== undefined) {
      this.streams.direct?.answered(id);
      this.answered(id);
    }
    if (!written) await this.whenDrained();
  }

  /** The answer, as a frame, to a request the direct path took: sent as send() sends one. */
  private answerFrame = (id: string | number, frame: string): void => {
    if (this.closed) return;
    const written = this.streams.output.write(frame);
    callEnds("answer written");
    this.answered(id);
    if (!written) void this.whenDrained();
  };

  /** A JSON-RPC error of the transport's own (see write): `id` null when none can be read. */
  private answerError(id: string | number | null, code: number, message: string): void {
    void this.write({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  /**
   * An answer of the transport's own, to a message it never handed on. It
   * frees no place: its id is the client's to choose, and one naming a
   * request being served would otherwise let that request run unnumbered,
   * past REQUESTS_IN_FLIGHT.
   */
  private async write(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    if (!this.streams.output.write(`${JSON.stringify(message)}\n`)) await this.whenDrained();
  }

  /**
   * Resolves once the client has read what was written. Until then no more
   * requests are read: a 46-byte tools/list is answered with 30 KB, and
   * answers written to a stdout nobody read were held in memory without
   * bound (2.7 GB in 15 s). What was already read is still answered; what the
   * client sends next waits in its pipe. One wait is shared by every answer
   * written meanwhile, so a thousand of them add one listener, not a thousand.
   */
  private whenDrained(): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const { output } = this.streams;
      this.input.pause();
      this.endWait = () => {
        output.off("drain", drained);
        this.drained = undefined;
        this.endWait = undefined;
        resolve();
      };
      const drained = () => {
        this.endWait?.();
        this.resumeReading();
      };
      output.once("drain", drained);
    });
    return this.drained;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.stop();
    this.endWait?.();
    this.streams.direct?.closed();
    this.onclose?.();
    this.resolveDone();
  }
}
