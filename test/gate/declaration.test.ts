import { describe, expect, test } from "bun:test";
import type { AgentOrigin } from "../../src/core/call.ts";
import { checkDeclaration } from "../../src/gate/declaration.ts";
import { toolDigest } from "../../src/upstreams/discover.ts";
import { upstreamCapabilities } from "../../src/upstreams/tools.ts";

const agent: AgentOrigin = { kind: "agent", name: "x", client: "c", session: "s", transport: "memory" };

describe("the declaration stage", () => {
  test("an upstream tool's own input named profile is sent on, never read as a profile's name", () => {
    const raw = { name: "deploy", inputSchema: { type: "object", properties: { profile: { type: "string" } } } };
    const made = upstreamCapabilities(
      { name: "up", transport: { kind: "stdio", command: ["x"], env: {} }, tools: {} },
      [{ ...raw, digest: toolDigest(raw) }],
      async () => ({ type: "text", text: "" }),
      new Set(),
    );
    const cap = made.caps[0];
    if (cap === undefined) throw new Error("no capability");
    const args = { profile: "staging" };
    // a grant's --args, and the upstream, see what the agent sent: it names no profile of rta's
    expect(checkDeclaration(cap, { capability: cap.tool, args, origin: agent }, args)).toEqual({ sent: args });
  });
});
