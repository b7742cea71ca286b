/**
 * An upstream over Streamable HTTP: the SDK's client transport, handed a
 * fetch that holds each answer's body to `maxMessage` bytes as it streams
 * (the SDK would otherwise read a JSON answer whole, or an SSE event of any
 * size), follows no redirect (a bearer header sent on to another origin is
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

/** The transport to `url` with `headers`, each answer body held to `maxMessage` bytes; refuses nothing. */
export function httpTransport(
  url: string,
  headers: Record<string, string>,
  maxMessage: number,
): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers, redirect: "error" },
    fetch: boundedFetch(maxMessage),
  });
}

/** fetch, with every answer's body cut off (as an error) once it passes `max` bytes. */
export function boundedFetch(max: number): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: "error" });
    if (response.body === null) return response;
    // an SSE stream opened by GET carries notifications for as long as the session lasts: each POST's answer is bounded
    const method = (init?.method ?? "GET").toUpperCase();
    if (method !== "POST") return response;
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
