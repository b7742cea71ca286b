import { describe, expect, test } from "bun:test";
import { callerOf } from "../../src/mcp/caller.ts";

describe("callerOf", () => {
  const place = { session: "s1", transport: "stdio" as const };

  test("the same client on the same connection is the same caller, made once", () => {
    const a = callerOf(place, { name: "Claude Code", version: "2.1" });
    const b = callerOf(place, { name: "Claude Code", version: "2.1" });
    expect(b).toBe(a);
    expect(a).toEqual({
      kind: "agent",
      name: "Claude-Code",
      client: "Claude Code 2.1",
      session: "s1",
      transport: "stdio",
    });
  });

  test("another name, version, connection, --agent or token agent is another caller", () => {
    const a = callerOf(place, { name: "Claude Code", version: "2.1" });
    expect(callerOf(place, { name: "Claude Code", version: "2.2" }).client).toBe("Claude Code 2.2");
    expect(callerOf(place, { name: "Cursor", version: "2.1" }).name).toBe("Cursor");
    expect(callerOf({ ...place, session: "s2" }, { name: "Claude Code", version: "2.1" }).session).toBe("s2");
    expect(callerOf({ ...place, agent: "ci" }, { name: "Claude Code", version: "2.1" }).name).toBe("ci");
    expect(callerOf(place, { name: "Claude Code", version: "2.1" }, "ops").name).toBe("ops");
    expect(callerOf(place, undefined)).toMatchObject({ name: "unknown", client: "unknown" });
    expect(callerOf(place, { name: "Claude Code", version: "2.1" })).toEqual(a);
  });

  test("a client name that is not text still throws, as the SDK's handler does", () => {
    callerOf(place, { name: "Claude Code", version: "2.1" });
    expect(() => callerOf(place, { name: 42 as unknown as string, version: "2.1" })).toThrow();
  });
});
