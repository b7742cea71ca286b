/**
 * A JSON-RPC error answer is held to a few KiB. The SDK checks each request
 * against its schema and, when it fails, answers with every issue the schema
 * found, pretty-printed: a 3 MiB prompts/get whose arguments hold 300,000
 * numbers where strings belong was answered with 68 MB, over stdio and HTTP
 * alike, and held whole until its client read it. The first issues say what
 * is wrong; the rest are cut here, before the answer is made.
 */
import type { Server } from "@modelcontextprotocol/server";

/** Room for the first few schema issues (one is about 250 characters); past it an error's message is cut. */
export const ERROR_MESSAGE_LIMIT_CHARS = 2048;

type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;

/** The SDK keeps a server's request handlers in this map; the field is not public, and the SDK version is pinned. */
interface HandlerTable {
  _requestHandlers?: Map<string, Handler>;
}

/** The message, cut to the limit with a word on how much was left out. */
export function cutMessage(message: string, limit = ERROR_MESSAGE_LIMIT_CHARS): string {
  if (message.length <= limit) return message;
  return `${message.slice(0, limit)}... (${message.length - limit} more characters left out)`;
}

/**
 * Wraps every request handler of the server, those it has and those set on it
 * later (the SDK adds some as it settles the era), so that what one throws
 * reaches the client with its message cut to the limit; its code and data are
 * kept. Returns the same server. Throws if the SDK no longer keeps its
 * handlers where this looks, so a change of SDK fails loudly in the tests.
 */
export function boundErrors(server: Server): Server {
  const table = (server as unknown as HandlerTable)._requestHandlers;
  if (!(table instanceof Map)) throw new Error("the MCP server keeps no request handlers where they are bounded");
  const wrap =
    (inner: Handler): Handler =>
    async (request, ctx) => {
      try {
        return await inner(request, ctx);
      } catch (err) {
        if (err instanceof Error && err.message.length > ERROR_MESSAGE_LIMIT_CHARS)
          err.message = cutMessage(err.message);
        throw err;
      }
    };
  for (const [method, handler] of table) Map.prototype.set.call(table, method, wrap(handler));
  table.set = (method: string, handler: Handler) => Map.prototype.set.call(table, method, wrap(handler)) as never;
  return server;
}
