import { describe, expect, test } from "bun:test";
import type { Server } from "@modelcontextprotocol/server";
import { builtins } from "../../src/capabilities/builtins.ts";
import { agentLimits } from "../../src/gate/bound.ts";
import { createServer, type ServeContext } from "../../src/mcp/server.ts";
import { testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

type Handler = (r: unknown, c: unknown) => Promise<{ tools: unknown[] }>;

function listTools(server: Server): Promise<{ tools: unknown[] }> {
  const table = (server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  return (table.get("tools/list") as Handler)(
    { method: "tools/list", params: {} },
    { mcpReq: { envelope: undefined } },
  );
}

describe("tools/list", () => {
  test("every server of one redactor hands out the tool list made once, as the HTTP front makes many", async () => {
    const ctx: ServeContext = {
      catalogue: catalogueOf(builtins),
      deps: testDeps(),
      session: "s",
      transport: "http",
      limits: agentLimits(),
    };
    const first = await listTools(createServer(ctx));
    const second = await listTools(createServer(ctx));
    expect(first.tools.length).toBeGreaterThan(0);
    expect(second.tools[0]).toBe(first.tools[0]);
  });
});
