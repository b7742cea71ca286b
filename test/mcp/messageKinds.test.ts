import { describe, expect, test } from "bun:test";
import { deserializeMessage, isJSONRPCNotification, isJSONRPCRequest } from "@modelcontextprotocol/server";
import { cancelledId, isRequest } from "../../src/mcp/messageKinds.ts";

const texts = [
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}',
  '{"jsonrpc":"2.0","id":"a","method":"ping"}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r"}}',
  '{"jsonrpc":"2.0","id":3,"result":{}}',
  '{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}',
  '{"jsonrpc":"2.0","error":{"code":-1,"message":"no"}}',
  // what the schema refuses never reaches these checks
  '{"jsonrpc":"2.0","id":null,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}',
  '{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":7}}',
];

describe("message kinds, told from members once the SDK's schema has passed a message", () => {
  test("a request, a notification and a cancellation are told as the SDK's own checks tell them", () => {
    let passed = 0;
    for (const text of texts) {
      let message: ReturnType<typeof deserializeMessage>;
      try {
        message = deserializeMessage(text);
      } catch {
        continue;
      }
      passed++;
      expect(isRequest(message)).toBe(isJSONRPCRequest(message));
      const cancelled =
        isJSONRPCNotification(message) && message.method === "notifications/cancelled"
          ? (message.params as { requestId?: string | number }).requestId
          : undefined;
      expect(cancelledId(message)).toBe(cancelled);
    }
    expect(passed).toBe(9);
  });
});
