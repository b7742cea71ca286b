/**
 * What rta's stdio transport asks of the direct path for tools/call
 * (src/mcp/serve/directCall.ts), so the transport knows nothing else of it.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";

/** Answers some requests itself, in place of the SDK (src/mcp/serve/directCall.ts); left out, the SDK answers all. */
export interface DirectAnswers {
  /** the message, parsed, when it is a request the direct path will take (the SDK's schema passes it as it is) */
  parse(text: string): JSONRPCMessage | undefined;
  /** told of each request served: takes one parse() gave and answers it later through `answer`; false: the SDK's */
  take(
    request: JSONRPCMessage & { id: string | number },
    answer: (id: string | number, frame: string) => void,
  ): boolean;
  /** the SDK's answer to this request went out */
  answered(id: string | number): void;
  /** the client cancelled this request: its call is stopped, and never answered */
  cancelled(id: string | number, reason: unknown): void;
  /** the session ended: every call taken is stopped, and none is answered */
  closed(): void;
}
