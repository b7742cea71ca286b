/**
 * The stdio direct path: a tools/call answered by rta's own transport, byte
 * for byte as the SDK would answer it, without the SDK's handling around the
 * call (its codec, request and result checks, context, promise hops and send
 * cost as much as the call's own pipeline for a small call).
 *
 * It takes only what it can answer exactly so; everything else goes to the
 * SDK as before. A request is taken only once the SDK itself has handed a
 * tools/call of the same kind to rta's handler on the server it settled the
 * era with: that proves the session's era is settled, the request's `_meta`
 * (none, or the same JSON text) passed the SDK's envelope checks, and which
 * server is serving. The request must hold nothing but `jsonrpc`, `id`,
 * `method` and `params`; its params nothing but a string `name`, an object
 * `arguments` and that `_meta`; its id a string or a safe integer. Such a
 * request is parsed here alone (JSON.parse), since the SDK's message schema
 * passes it unchanged. A progress token makes no difference: rta sends no
 * progress over MCP, whichever path.
 */

import {
  CLIENT_CAPABILITIES_META_KEY,
  deserializeMessage,
  type JSONRPCMessage,
  SERVER_INFO_META_KEY,
  type Server,
} from "@modelcontextprotocol/server";
import { settleJit } from "../../core/jit.ts";
import { lap } from "../../core/profile.ts";
import { cutMessage } from "../boundedErrors.ts";
import { callerOf, clientInfo } from "../caller.ts";
import { mayAsk } from "../consentSeat.ts";
import type { DirectAnswers } from "../directAnswers.ts";
import { isModernRevision } from "../eras.ts";
import { answerCall, SERVER_INFO, type ServeContext, type ToolAnswer } from "../server.ts";
import type { CallsInFlight } from "./callsInFlight.ts";

/** Kinds of request (their `_meta` text) remembered as passed: a client sends one, or one per progress token. */
const KINDS_KEPT = 8;
/**
 * Requests the SDK was left, remembered until it hands them to the handler or
 * answers them: at most the calls in flight, and those cancelled before the
 * SDK handed them over. Past it the session learns no more kinds.
 */
const PENDING_KEPT = 64;
/** What is remembered of a request of no kind to learn: not a tools/call the direct path could take, or its id taken twice. */
const AMBIGUOUS = null;
/** JSON-RPC's code for an internal error, which the SDK answers for a handler that throws without a code. */
const INTERNAL_ERROR = -32603;
/** The SDK answers its old resource-not-found code as invalid params, in both eras. */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

interface Shape {
  id: string | number;
  name: string;
  args: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
  /** the `_meta` as JSON text, "" when there is none */
  kind: string;
}

/**
 * One stdio session's direct path: told by the SDK's handler which kinds of
 * tools/call it accepts (sdkCall), it parses, runs and answers the next ones
 * itself, counted in the session's calls in flight and stopped by the
 * client's cancellation or the session's end as the SDK stops its own.
 */
export class DirectCalls implements DirectAnswers {
  /** the server the SDK settled the era with, once it has handed rta's handler a tools/call */
  private server: Server | undefined;
  /** the kinds of request the SDK handed to `server`'s handler */
  private readonly passed = new Set<string>();
  /**
   * The kind of each request left to the SDK and served, by id, until its
   * handler is handed it or its answer goes out. Set as the transport serves
   * it, never as it is read, or a request refused for its id in use (or left
   * waiting) would name its kind for the one served under that id; and set
   * for every request served, or one the SDK hands over after its client
   * cancelled it would be taken for the next request under its id.
   */
  private readonly pending = new Map<string | number, string | typeof AMBIGUOUS>();
  /** the tools/calls parse() left to the SDK, each with its kind, until the transport serves them */
  private readonly heard = new WeakMap<object, string>();
  /** the requests parse() took, each with what it asks, until take() is handed them */
  private readonly approved = new WeakMap<object, Shape>();
  /** the calls taken and under way, by id; one the client cancelled is gone from here */
  private readonly running = new Map<string | number, AbortController>();
  private ended = false;
  /** more requests left to the SDK went unresolved than can be in flight: no kind is learnt any more */
  private unsure = false;
  /** how many calls the direct path took, for a test to see it was taken */
  taken = 0;

  constructor(
    private readonly ctx: ServeContext,
    private readonly calls: CallsInFlight,
  ) {}

  /** Told by the SDK's tools/call handler (ServeContext.onSdkCall) that it was handed request `id` on `server`. */
  readonly sdkCall = (server: Server, id: string | number): void => {
    const kind = this.pending.get(id);
    if (kind === undefined) return;
    this.pending.delete(id);
    if (kind === AMBIGUOUS || this.unsure) return;
    if (server !== this.server) {
      this.server = server;
      this.passed.clear();
    }
    if (this.passed.size < KINDS_KEPT) this.passed.add(kind);
  };

  parse(text: string): JSONRPCMessage | undefined {
    if (this.ended || !text.includes('"tools/call"')) return undefined;
    // the handshake is over once calls come: what runs from now on runs call after call
    settleJit();
    const asked: unknown = JSON.parse(text);
    const shape = shapeOf(asked);
    if (shape === undefined) return undefined;
    // a call a person may have to accept is the SDK's: only its handler holds a seat to ask through
    if (mayAsk(shape.name, this.ctx.catalogue, this.ctx.deps)) return undefined;
    // so is one that may ask a 2026-07-28 client that declares roots for them (callRoots.ts)
    if (this.ctx.rootsInCall?.heard === false && declaresRoots(shape.meta)) return undefined;
    const server = this.server;
    if (server !== undefined && server.transport !== undefined && this.passed.has(shape.kind)) {
      this.approved.set(asked as object, shape);
      return asked as JSONRPCMessage;
    }
    // The SDK's: parsed as the transport parses it, and known by its kind when the transport serves it.
    const message = deserializeMessage(text);
    this.heard.set(message, shape.kind);
    return message;
  }

  take(
    request: JSONRPCMessage & { id: string | number },
    answer: (id: string | number, frame: string) => void,
  ): boolean {
    const shape = this.approved.get(request);
    if (shape === undefined) {
      this.leftToSdk(request);
      return false;
    }
    this.approved.delete(request);
    const server = this.server;
    // Ending: the SDK, itself ending, drops the request as it drops any that comes now.
    if (this.ended || server === undefined || server.transport === undefined) return false;
    lap("direct path");
    this.taken++;
    void this.run(server, shape, answer);
    return true;
  }

  /**
   * A request the SDK is handed: its kind, if it is a tools/call the direct
   * path could take, is learnt once the SDK hands it to the handler. An id a
   * request the SDK never handed over still holds (one cancelled before its
   * handler ran) is ambiguous: either request may be the one handed over, and
   * neither's kind is learnt.
   */
  private leftToSdk(request: JSONRPCMessage & { id: string | number }): void {
    const { id } = request;
    if (this.pending.has(id)) this.pending.set(id, AMBIGUOUS);
    else if (this.pending.size >= PENDING_KEPT) this.unsure = true;
    else this.pending.set(id, this.heard.get(request) ?? AMBIGUOUS);
  }

  /** The answer to request `id` went out: a request the SDK refused before its handler is forgotten. */
  answered(id: string | number): void {
    this.pending.delete(id);
  }

  cancelled(id: string | number, reason: unknown): void {
    const stop = this.running.get(id);
    if (stop === undefined) return;
    this.running.delete(id);
    stop.abort(reason);
  }

  closed(): void {
    this.ended = true;
    const stops = [...this.running.values()];
    this.running.clear();
    for (const stop of stops) stop.abort(new Error("Connection closed"));
  }

  private async run(server: Server, shape: Shape, answer: (id: string | number, frame: string) => void): Promise<void> {
    const { id } = shape;
    const stop = new AbortController();
    this.running.set(id, stop);
    const client = clientInfo(server, shape.meta);
    const version = server.getNegotiatedProtocolVersion();
    let frame: string;
    // counted among the calls under way until it has ended, as the SDK's handler's calls are (CallsInFlight.run)
    this.calls.entered(stop);
    try {
      // Inside: a client's name that is not text throws here as in the SDK's handler, and is answered as it answers it.
      const origin = callerOf(this.ctx, client);
      // with no seat the answer is never a question: a call on a confirm list is refused, never run
      const result = (await answerCall(this.ctx, shape.name, shape.args, origin, stop, version)) as ToolAnswer;
      frame = resultFrame(id, result, isModernRevision(version));
      lap("answer frame JSON");
    } catch (err) {
      frame = errorFrame(id, err as Error & { code?: unknown; data?: unknown });
    } finally {
      this.calls.left(stop);
    }
    // A call its client cancelled, or that the session's end stopped, is not answered, as the SDK does.
    if (this.running.get(id) !== stop) return;
    this.running.delete(id);
    answer(id, frame);
  }
}

/**
 * What the request asks, when it is a tools/call the SDK would hand to rta's
 * handler unchanged, and the SDK's message schema would pass as it is: else
 * undefined, and the SDK parses and answers it.
 */
function shapeOf(value: unknown): Shape | undefined {
  if (!isPlain(value)) return undefined;
  const { jsonrpc, id, method, params } = value;
  if (jsonrpc !== "2.0" || method !== "tools/call") return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  for (const key in value)
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return undefined;
  if (!isPlain(params)) return undefined;
  for (const key in params) if (key !== "name" && key !== "arguments" && key !== "_meta") return undefined;
  const { name, arguments: args = {}, _meta: meta } = params;
  if (typeof name !== "string" || !isPlain(args) || Object.hasOwn(args, "__proto__")) return undefined;
  if (meta !== undefined && !isPlain(meta)) return undefined;
  return { id: id as string | number, name, args, meta, kind: meta === undefined ? "" : JSON.stringify(meta) };
}

/** Whether a request's envelope says its client has roots to offer. */
function declaresRoots(meta: Record<string, unknown> | undefined): boolean {
  const caps = meta?.[CLIENT_CAPABILITIES_META_KEY];
  return isPlain(caps) && caps.roots !== undefined;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the 2026-07-28 era adds after the result's own members, as JSON text: it never changes. */
const MODERN_TAIL = `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })}`;

/**
 * The answer's frame as the SDK builds it (JSON of `{result, jsonrpc, id}`:
 * the result first, on the 2026-07-28 era with its resultType and the
 * server's identity after it), made as text around the result's text escaped
 * once, where JSON of the whole would walk the frame's objects to reach it.
 */
function resultFrame(id: string | number, result: ToolAnswer, modern: boolean): string {
  const tail = modern ? MODERN_TAIL : "";
  const error = result.isError === true ? ',"isError":true' : "";
  // the id is a string or a safe integer (shapeOf): JSON of it is what JSON of the frame holds
  // an upstream's image or audio blocks follow the text, as the SDK's handler sends them
  let media = "";
  for (let i = 1; i < result.content.length; i++) media += `,${JSON.stringify(result.content[i])}`;
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(result.content[0].text)}}${media}]${error}${tail}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
}

/** An error answer as the SDK builds it from what the handler threw, its message held to the limit as boundErrors holds it. */
function errorFrame(id: string | number, err: Error & { code?: unknown; data?: unknown }): string {
  const thrown = Number.isSafeInteger(err.code) ? (err.code as number) : INTERNAL_ERROR;
  const code = thrown === RESOURCE_NOT_FOUND ? INVALID_PARAMS : thrown; // the SDK's encodeErrorCode, both eras
  const message = cutMessage(err.message ?? "Internal error");
  const error = err.data === undefined ? { code, message } : { code, message, data: err.data };
  return `${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`;
}
