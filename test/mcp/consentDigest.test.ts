/**
 * The call a 2026-07-28 request state is bound to: arguments that differ
 * give another digest, however their keys are named or ordered.
 */
import { expect, test } from "bun:test";
import { type AskedCall, callDigest } from "../../src/mcp/consentSeat.ts";

const asked = (args: Record<string, unknown>): AskedCall => ({
  session: "s1",
  origin: { kind: "agent", name: "claude", client: "c 1", session: "s1", transport: "stdio" },
  tool: "up_tool",
  args,
  dataDir: "/nowhere",
});

test("the same arguments in another key order give the same digest", () => {
  expect(callDigest(asked({ a: 1, b: { c: 2, d: 3 } }))).toBe(callDigest(asked({ b: { d: 3, c: 2 }, a: 1 })));
});

test("a key named __proto__ is part of the arguments: one added after the yes does not pass as the same call", () => {
  const seen = asked({ path: "a", options: {} });
  for (const text of [
    '{"path":"a","options":{},"__proto__":"x"}',
    '{"path":"a","options":{"__proto__":{"force":true}}}',
  ])
    expect(callDigest(asked(JSON.parse(text)))).not.toBe(callDigest(seen));
});
