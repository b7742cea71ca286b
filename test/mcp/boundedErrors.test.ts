import { describe, expect, test } from "bun:test";
import { Server } from "@modelcontextprotocol/server";
import { boundErrors, cutMessage, ERROR_MESSAGE_LIMIT_CHARS } from "../../src/mcp/boundedErrors.ts";

describe("cutMessage", () => {
  test("keeps a message within the limit and cuts a longer one, saying how much went", () => {
    expect(cutMessage("short")).toBe("short");
    const long = "x".repeat(ERROR_MESSAGE_LIMIT_CHARS + 500);
    expect(cutMessage(long)).toBe(`${"x".repeat(ERROR_MESSAGE_LIMIT_CHARS)}... (500 more characters left out)`);
  });
});

describe("boundErrors", () => {
  test("cuts what a handler throws, one set before or after, and keeps its code", async () => {
    const server = boundErrors(new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } }));
    const huge = Object.assign(new Error("y".repeat(100_000)), { code: -32602 });
    server.setRequestHandler("tools/list", async () => {
      throw huge;
    });
    const table = (server as unknown as { _requestHandlers: Map<string, (r: unknown, c: unknown) => Promise<unknown>> })
      ._requestHandlers;
    const thrown = await table
      .get("tools/list")?.({ method: "tools/list", params: {} }, {})
      .catch((e: unknown) => e);
    expect((thrown as Error).message.length).toBeLessThan(ERROR_MESSAGE_LIMIT_CHARS + 64);
    expect((thrown as { code: number }).code).toBe(-32602);
  });
});
