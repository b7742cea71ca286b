/**
 * The answers the HTTP front gives of its own, before or around the SDK's:
 * JSON-RPC errors with no id, the headers a refusal carries, and the
 * wrapper that tells when an answer has left. Nothing here decides whether
 * to refuse; the checks do.
 */
import { RETRY_AFTER_SECONDS, type Refusal } from "./limits.ts";

/** A refusal closes its connection: whatever the caller was still sending is not read. */
export const CLOSE = { connection: "close" };
/** A refusal of a caller who may come back: the connection closes, and Retry-After says when. */
export const RETRY = { ...CLOSE, "retry-after": String(RETRY_AFTER_SECONDS) };

/** A JSON-RPC error answer with id null, at this HTTP status, with these extra headers. Refuses nothing. */
export function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The answer to a request the server's or its agent's share would not let in: 429 or 503, with Retry-After. */
export function refused(r: Refusal): Response {
  return rpcError(r.status, -32000, r.message, RETRY);
}

const OPENING = new TextEncoder().encode(": open\n\n");

/**
 * The same event stream, its first bytes an SSE comment, which every client skips. Bun sends a streamed response's
 * headers only with its first bytes, and a session's GET stream may be silent for long: without them its client,
 * and any proxy on the way, would wait for the first message, or the SDK's keepalive 15 s later, to learn the
 * stream is open. Any other response is returned as it is.
 */
export function opened(res: Response): Response {
  if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
  const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ start: (c) => c.enqueue(OPENING) }));
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * The same response, calling `done` once its body has been sent or its client
 * has gone: that is when what the request held may be given back. A response
 * with no body calls `done` at once and is returned as it is. `gone` is called
 * too, first, when the client went before the body's end.
 */
export function whenSent(res: Response, done: () => void, gone?: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          done();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      gone?.();
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
