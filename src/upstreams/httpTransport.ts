/**
 * An upstream over Streamable HTTP: the SDK's client transport, handed a
 * fetch that holds each answer's body to `maxMessage` bytes as it streams
 * (the SDK would otherwise read a JSON answer whole, or an SSE event of any
 * size), and each event of the stream a GET opens for as long as the session
 * lasts to the same bound (an upstream may send any message there, an answer
 * too), follows no redirect (a bearer header sent on to another origin is
 * a leaked secret), and carries the operator's headers.
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** A message from an upstream past the bound; what it says names nothing of the upstream. */
export class TooLarge extends Error {
  constructor(readonly size: number) {
    super(`an upstream message passed ${size} bytes`);
    this.name = "TooLarge";
  }
}

/**
 * The transport to `url` with `headers`, each answer body (and each event of
 * a GET's stream) held to `maxMessage` bytes; `onCut` is told of an event
 * cut on a GET's stream, which no request of rta's sees fail. Refuses nothing.
 */
export function httpTransport(
  url: string,
  headers: Record<string, string>,
  maxMessage: number,
  onCut?: (size: number) => void,
): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers, redirect: "error" },
    fetch: boundedFetch(maxMessage, onCut),
  });
}

/**
 * fetch, with every POST answer's body cut off (as an error) once it passes
 * `max` bytes, and a GET's stream once one of its events does: that stream
 * lasts as long as the session, so it is its events that are bounded.
 */
export function boundedFetch(max: number, onCut?: (size: number) => void): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: "error" });
    if (response.body === null) return response;
    const method = (init?.method ?? "GET").toUpperCase();
    if (method !== "POST") {
      return new Response(response.body.pipeThrough(eventsBounded(max, onCut)), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > max) {
      await response.body.cancel();
      throw new TooLarge(declared);
    }
    let seen = 0;
    const cut = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) controller.error(new TooLarge(seen));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(cut), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * An SSE stream passed on while each of its events (the bytes up to a blank
 * line) is within `max` bytes, and errored (TooLarge) once one passes it.
 */
function eventsBounded(max: number, onCut?: (size: number) => void): TransformStream<Uint8Array, Uint8Array> {
  let event = 0;
  let line = 0;
  let afterCr = false;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      // each line break found by indexOf, the next of each kind kept, so a chunk of many short lines is read once
      let cr = chunk.indexOf(CR);
      let lf = chunk.indexOf(LF);
      for (let from = 0; from < chunk.length; ) {
        if (cr !== -1 && cr < from) cr = chunk.indexOf(CR, from);
        if (lf !== -1 && lf < from) lf = chunk.indexOf(LF, from);
        const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        const run = (at === -1 ? chunk.length : at) - from;
        if (run > 0) {
          line += run;
          event += run;
          afterCr = false;
        }
        if (at === -1) break;
        from = at + 1;
        // a CR LF is one line break
        if (chunk[at] === LF && afterCr) {
          afterCr = false;
          continue;
        }
        afterCr = chunk[at] === CR;
        // a blank line ends the event
        if (line === 0) event = 0;
        line = 0;
      }
      if (event > max) {
        onCut?.(event);
        controller.error(new TooLarge(event));
      } else controller.enqueue(chunk);
    },
  });
}
