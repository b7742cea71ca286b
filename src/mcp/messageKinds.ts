/**
 * What kind of JSON-RPC message the stdio transport has in hand, told from
 * its members alone: each message it asks about either passed the SDK's
 * JSONRPCMessageSchema (coming in) or was built by the SDK (going out).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { isSpecType } from "@modelcontextprotocol/server";

/**
 * Whether a message the SDK's schema passed is a request. Each of that
 * schema's four kinds is strict, and only a request has both a method and an
 * id: a second schema check (isJSONRPCRequest) of every message cost a few
 * microseconds a call and told nothing more.
 */
export function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number } {
  return "method" in message && "id" in message;
}

/** True for a `subscriptions/listen` request (2026-07-28), which lasts as long as its subscription. */
export function isListen(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number } {
  return isRequest(message) && (message as { method: string }).method === "subscriptions/listen";
}

/**
 * The id of the request a `notifications/cancelled` names; undefined for any
 * other message (one the SDK's schema passed). A cancellation the SDK's own
 * schema of it refuses (a reason that is not a string, say) is dropped by the
 * SDK, and its call runs on and answers: it names nothing, or every place in
 * flight could be freed with the calls still running. Cancellations are rare,
 * so the check costs a call nothing. It is the 2025 eras' schema and what the
 * 2026-07-28 one asks more of its _meta; one only the 2026 schema passes frees
 * no place (its call's place is lost to that client, never gained by it).
 */
export function cancelledId(message: JSONRPCMessage): string | number | undefined {
  if (!("method" in message) || "id" in message || message.method !== "notifications/cancelled") return undefined;
  if (!isSpecType.CancelledNotification(message) || !modernMetaPasses(message.params?._meta)) return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * The id a message the server sends answers, if it is an answer (it has an
 * id and no method; a request of the server's own has both). The SDK built
 * the message: a schema check of the whole answer, its result included, cost
 * as much as a tenth of a small call, and told nothing more.
 */
export function answerId(message: JSONRPCMessage): string | number | undefined {
  if ("method" in message) return undefined;
  const id = (message as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** The subscription a 2026-07-28 notification's _meta may name must be a request id, or the SDK drops the notification. */
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

function modernMetaPasses(meta: unknown): boolean {
  if (meta === undefined) return true;
  const id = (meta as Record<string, unknown>)[SUBSCRIPTION_ID];
  return id === undefined || typeof id === "string" || Number.isInteger(id);
}

/**
 * The id of JSON that is not a JSON-RPC message (params that are not an
 * object, no "jsonrpc", a method that is not a string), or null: a request
 * whose id can be read is answered with that id, or its client would wait on
 * it for good.
 */
export function readableId(text: string): string | number | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const { id, method } = value as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || Number.isSafeInteger(id))
      ? (id as string | number)
      : null;
  } catch {
    return null; // not JSON after all: no id to give
  }
}
