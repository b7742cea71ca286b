/**
 * Stage 11, run (src/gate/execute.ts): an agent's run is handed its lane, the check that it is still allowed, and
 * what it shows masked; a person's none of them, unbounded; the handles a run asks for late are made once a call.
 */
import { describe, expect, test } from "bun:test";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { person } from "../../src/core/call.ts";
import { define, type RunContext } from "../../src/core/capability.ts";
import { table } from "../../src/core/result.ts";
import { agentLimits, UNBOUNDED } from "../../src/gate/bound.ts";
import { execute } from "../../src/gate/execute.ts";
import { testDeps } from "../support/fixtures.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c 1.0", session: "s1", transport: "memory" };

/** A capability that hands back the context its run was given, and answers a table of its declared columns. */
function probe() {
  const seen: RunContext[] = [];
  const cap = define({
    name: "test.probe",
    summary: "hands its context back",
    safety: "read",
    inputs: {},
    result: {
      shape: "table",
      columns: [
        { name: "a", doc: "first" },
        { name: "b", doc: "second" },
      ],
    },
    examples: [],
    async run(_args, ctx) {
      seen.push(ctx);
      const out = ctx.rows();
      out.add(["x", "y"]);
      return out.finish();
    },
  });
  return { cap, seen };
}

function run(cap: ReturnType<typeof probe>["cap"], call: Call, deps = testDeps()) {
  const limits = call.origin.kind === "agent" ? agentLimits() : UNBOUNDED;
  return execute(cap, {}, { call, deps, signal: new AbortController().signal, limits, paths: {}, grant: undefined });
}

describe("stage 11, run: what a run is handed", () => {
  test("an agent's run is handed its lane, a check that it is still allowed, and what it shows masked", async () => {
    const { cap, seen } = probe();
    const deps = testDeps();
    const answer = await run(cap, { capability: "test_probe", args: {}, origin: agent }, deps);
    expect(answer).toEqual(table(["a", "b"], [["x", "y"]]));
    const ctx = seen[0] as RunContext;
    expect(ctx.lane).toBe("claude");
    expect(() => ctx.stillAllowed?.()).not.toThrow();
    // handed on its own, as fs.read hands it on: it is not a method that needs its object
    const shown = ctx.shown as NonNullable<RunContext["shown"]>;
    expect(shown(`${deps.dirs.data}/gate.db token=abc`)).toBe("<data dir>/gate.db token=abc");
    expect(shown("Authorization: Bearer abc")).toBe("Authorization: ***");
    expect(ctx.dataDir).toBe(deps.dirs.data);
    expect(ctx.budget).toBe(agentLimits().model);
  });

  test("a person's run is handed no lane, no check and no masking, and is not bounded", async () => {
    const { cap, seen } = probe();
    await run(cap, { capability: "test.probe", args: {}, origin: person });
    const ctx = seen[0] as RunContext;
    expect("shown" in ctx || "stillAllowed" in ctx || "lane" in ctx || "progress" in ctx).toBe(false);
    expect(ctx.budget).toBe(Number.POSITIVE_INFINITY);
  });

  test("what a run asks for late is made once per call, and each call gets its own", async () => {
    const { cap, seen } = probe();
    const deps = testDeps();
    await run(cap, { capability: "test_probe", args: {}, origin: agent }, deps);
    await run(cap, { capability: "test_probe", args: {}, origin: agent }, deps);
    const [a, b] = seen as [RunContext, RunContext];
    expect(a.spawn).toBe(a.spawn);
    expect(a.net).toBe(a.net);
    expect(a.spawn).not.toBe(b.spawn);
    expect(a.identityFile).toBe(b.identityFile);
    // a writer asked for with no columns has the declared ones, a new list each time
    expect(a.rows().finish()).toMatchObject({ type: "table", columns: ["a", "b"] });
    expect(a.rows(["z"], "log").finish()).toMatchObject({ type: "log", columns: ["z"] });
  });
});
