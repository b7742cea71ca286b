import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { jwtDecode } from "../../src/capabilities/jwt/decode.ts";
import { procList } from "../../src/capabilities/proc/list.ts";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { person } from "../../src/core/call.ts";
import { table } from "../../src/core/result.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { fixedClock, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const agent: AgentOrigin = {
  kind: "agent",
  name: "claude",
  client: "test-client 1.0",
  session: "s1",
  transport: "memory",
};
const catalogue = builtinCatalogue();
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";

function agentCall(capability: string, args: Record<string, unknown> = {}): Call {
  return { capability, args, origin: agent };
}

async function refused(call: Call, cat = catalogue) {
  const deps = testDeps();
  const outcome = await runCall(call, cat, deps);
  if (outcome.ok) throw new Error("expected a refusal");
  return { error: outcome.error, lines: deps.record.lines };
}

describe("stage 1, resolve", () => {
  test("an agent names tools; a dotted name is not a tool name", async () => {
    const { error } = await refused(agentCall("jwt.decode", { token: TOKEN }));
    expect(error.code).toBe("core.tool.unknown");
  });

  test("a never-a-tool name gets the same answer as a made-up one, apart from the name, and both are probes", async () => {
    const never = await refused(agentCall("grant_allow", { agent: "me" }));
    const madeUp = await refused(agentCall("grant_allowz", { agent: "me" }));
    expect(never.error.code).toBe("core.tool.unknown");
    expect(never.error.message.replace("grant_allow", "X")).toBe(madeUp.error.message.replace("grant_allowz", "X"));
    expect(never.error.hint).toBe(madeUp.error.hint);
    expect(never.lines[0]).toMatchObject({ capability: "grant_allow", outcome: "core.tool.unknown", probe: true });
  });
});

describe("stage 2, shape", () => {
  test("a wrong type is core.mcp.badargs for an agent, listing what the tool takes", async () => {
    const { error } = await refused(agentCall("proc_list", { limit: "ten" }));
    expect(error.code).toBe("core.mcp.badargs");
    expect(error.message).toBe('proc_list: argument "limit" must be an integer');
    expect(error.hint).toBe("proc_list takes: sort (string: cpu|mem|pid), limit (integer 1..1000)");
  });

  test("an argument the tool does not have is refused with the same list", async () => {
    const { error } = await refused(agentCall("proc_list", { sortt: "cpu" }));
    expect(error.code).toBe("core.mcp.badargs");
    expect(error.message).toBe('proc_list: unknown argument "sortt"');
    expect(error.hint).toContain("proc_list takes: sort");
  });

  test("a tool without inputs says it takes none; non-object arguments are refused", async () => {
    expect((await refused(agentCall("sys_info", { x: 1 }))).error.hint).toBe("sys_info takes no arguments");
    expect((await refused(agentCall("sys_info", [] as unknown as Record<string, unknown>))).error.code).toBe(
      "core.mcp.badargs",
    );
  });

  test("a person's wrong type is core.input.invalid, naming the capability", async () => {
    const { error } = await refused({ capability: "proc.list", args: { limit: "x" }, origin: person });
    expect(error.code).toBe("core.input.invalid");
    expect(error.hint).toContain("proc.list takes:");
  });
});

describe("stage 3, declaration", () => {
  test("a value none of the options name is core.input.option, listing them", async () => {
    const { error, lines } = await refused(agentCall("proc_list", { sort: "size" }));
    expect(error.code).toBe("core.input.option");
    expect(error.hint).toBe("sort is one of: cpu, mem, pid");
    expect(lines[0]?.outcome).toBe("core.input.option");
  });

  test("a number outside the range is core.input.range, with the range", async () => {
    for (const limit of [0, 1001, -5]) {
      const { error } = await refused(agentCall("proc_list", { limit }));
      expect(error.code).toBe("core.input.range");
      expect(error.message).toContain("1..1000");
    }
  });

  test("a required input left out or sent empty is core.input.missing", async () => {
    expect((await refused(agentCall("jwt_decode"))).error.message).toBe("token is required");
    expect((await refused(agentCall("jwt_decode", { token: "  " }))).error.message).toBe("token is empty");
  });

  test("defaults fill what was left out, so the run sees the values the call runs with", async () => {
    let seen: unknown;
    const spy = {
      ...procList,
      run: async (args: unknown) => {
        seen = args;
        return table([], []);
      },
    };
    const cat = catalogueOf([spy]);
    const outcome = await runCall(agentCall("proc_list"), cat, testDeps());
    expect(outcome.ok).toBe(true);
    expect(seen).toEqual({ sort: "cpu", limit: 50 });
  });
});

describe("stage 11, run, and stage 14, record", () => {
  test("a call that runs is recorded with argument names only, never values", async () => {
    const clock = fixedClock(1_700_000_000_000);
    const deps = testDeps({ clock });
    const outcome = await runCall(agentCall("jwt_decode", { token: TOKEN }), catalogue, deps);
    expect(outcome.ok).toBe(true);
    // a free read that aims nowhere has no effect outside its answer: its outcome line alone is the call
    expect(deps.record.lines.map((l) => l.kind ?? l.outcome)).toEqual(["ok"]);
    const line = deps.record.lines[0];
    expect(line).toMatchObject({
      session: "s1",
      seq: 1,
      agent: "claude",
      client: "test-client 1.0",
      transport: "memory",
      capability: "jwt_decode",
      outcome: "ok",
      args: ["token"],
      time: "2023-11-14T22:13:20.000Z",
    });
    expect(JSON.stringify(deps.record.lines)).not.toContain(TOKEN);
    expect(line?.probe).toBeUndefined();
  });

  test("a capability's own refusal keeps its code and is recorded", async () => {
    const { error, lines } = await refused(agentCall("jwt_decode", { token: "not-a-token" }));
    expect(error.code).toBe("jwt.malformed");
    expect(lines.at(-1)?.outcome).toBe("jwt.malformed");
  });

  test("an unexpected throw becomes a bare core.internal, and is handed to onUnexpected", async () => {
    const boom = {
      ...jwtDecode,
      run: async () => {
        throw new Error("EACCES /root/.local/share/rta/kv.age");
      },
    };
    const deps = testDeps();
    let seen: unknown;
    const outcome = await runCall(agentCall("jwt_decode", { token: TOKEN }), catalogueOf([boom]), deps, {
      onUnexpected: (t) => {
        seen = t;
      },
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("core.internal");
    expect(outcome.error.message).not.toContain("kv.age");
    expect((seen as Error).message).toContain("EACCES");
    expect(deps.record.lines.at(-1)?.outcome).toBe("core.internal");
  });

  test("a person's calls are not recorded", async () => {
    const deps = testDeps();
    await runCall({ capability: "jwt.decode", args: { token: TOKEN }, origin: person }, catalogue, deps);
    await runCall({ capability: "nope.x", args: {}, origin: person }, catalogue, deps);
    expect(deps.record.lines).toHaveLength(0);
  });

  test("sequence numbers count per session", async () => {
    const deps = testDeps();
    await runCall(agentCall("sys_info"), catalogue, deps);
    await runCall({ ...agentCall("sys_info"), origin: { ...agent, session: "s2" } }, catalogue, deps);
    await runCall(agentCall("nope"), catalogue, deps);
    expect(deps.record.lines.map((l) => [l.session, l.seq, l.kind ?? l.outcome])).toEqual([
      ["s1", 1, "ok"],
      ["s2", 1, "ok"],
      ["s1", 2, "core.tool.unknown"],
    ]);
  });
});
