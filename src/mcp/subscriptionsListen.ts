/**
 * The 2026-07-28 way to subscribe over stdio: `subscriptions/listen` with
 * `resourceSubscriptions`. The SDK's stdio entry serves the listen itself
 * (acknowledges it, and stamps each `notifications/resources/updated` the
 * server sends onto the listens that name its URI); rta's transport shows
 * this wrapper every request first, so the URIs a listen names are watched
 * while it lasts, and a listen that would take the connection past 64 is
 * refused whole before the SDK sees it. Cancelling the listen stops watching
 * what no other listen names.
 */
import { CLIENT_INFO_META_KEY, type Implementation, ProtocolError } from "@modelcontextprotocol/server";
import type { AgentOrigin } from "../core/call.ts";
import type { DirectAnswers } from "./directAnswers.ts";
import type { Subscriptions } from "./subscriptions.ts";

/** The URIs a listen request's filter names; none when it names none or is not one. */
function listenUris(request: { method?: string; params?: unknown }): string[] {
  if (request.method !== "subscriptions/listen") return [];
  const wanted = (request.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications
    ?.resourceSubscriptions;
  return Array.isArray(wanted) ? [...new Set(wanted.filter((u): u is string => typeof u === "string"))] : [];
}

/** The client a request's envelope names. */
function clientOf(params: unknown): Implementation | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
}

/**
 * `inner` (the direct path, when there is one) with listens watched through
 * `subs`; `originOf` says who a listen's client is. Refuses nothing itself:
 * a listen past the limit is answered with the error, as a JSON-RPC error.
 */
export function withListens(
  inner: DirectAnswers | undefined,
  subs: Subscriptions,
  originOf: (client: Implementation | undefined) => AgentOrigin,
): DirectAnswers {
  const listens = new Map<string | number, string[]>();
  const stopWatching = (id: string | number): void => {
    const uris = listens.get(id);
    if (uris === undefined) return;
    listens.delete(id);
    const still = new Set([...listens.values()].flat());
    for (const uri of uris) if (!still.has(uri)) subs.unsubscribe(uri);
  };
  return {
    parse: (text) => inner?.parse(text),
    take(request, answer) {
      const uris = listenUris(request as { method?: string; params?: unknown });
      if (uris.length === 0) return inner?.take(request, answer) ?? false;
      try {
        subs.checkRoom(uris);
      } catch (err) {
        const e = err as ProtocolError;
        const error = { code: e.code, message: e.message, ...(e instanceof ProtocolError ? { data: e.data } : {}) };
        answer(request.id, `${JSON.stringify({ jsonrpc: "2.0", id: request.id, error })}\n`);
        return true;
      }
      listens.set(request.id, uris);
      const origin = originOf(clientOf((request as { params?: unknown }).params));
      // a URI that cannot be read now (unknown, refused) is not watched: the listen names it, and nothing comes
      for (const uri of uris) void subs.subscribe(uri, origin).catch(() => {});
      return false;
    },
    answered(id) {
      // a listen is answered only when it ends (the server closing it gracefully)
      stopWatching(id);
      inner?.answered(id);
    },
    cancelled(id, reason) {
      stopWatching(id);
      inner?.cancelled(id, reason);
    },
    closed() {
      listens.clear();
      subs.close();
      inner?.closed();
    },
  };
}
