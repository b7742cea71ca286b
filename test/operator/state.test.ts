/**
 * One server's state as the operator channel sees it: a call watched is
 * cancelled when a person locks its agent, whether the lock comes through
 * the channel or is only seen by the server's own lock check on another call.
 */
import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin, Outcome } from "../../src/core/call.ts";
import { RtaError } from "../../src/core/errors.ts";
import { lock } from "../../src/gate/operator/locks.ts";
import { ServerState } from "../../src/operator/state.ts";
import { testDeps } from "../support/fixtures.ts";

const claude: AgentOrigin = { kind: "agent", name: "claude", client: "t", session: "s", transport: "stdio" };

function setup() {
  const deps = testDeps();
  const catalogue = builtinCatalogue();
  const state = new ServerState(
    { server: "0badcafe", pid: 1, transport: "stdio", started: new Date(0).toISOString() },
    deps,
    catalogue,
  );
  const events: Record<string, unknown>[] = [];
  state.broadcast = (e) => events.push(e as unknown as Record<string, unknown>);
  state.watched = () => true;
  return { deps, catalogue, state, events };
}

/** A call that runs until its signal aborts, and ends with the signal's reason. */
const untilCancelled = (signal: AbortSignal): Promise<Outcome> =>
  new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve({ ok: false, error: signal.reason as RtaError }), { once: true }),
  );

describe("ServerState", () => {
  test("a lock through the channel cancels the agent's call under way, and not another agent's", async () => {
    const { state, events } = setup();
    const caller = new AbortController();
    const call = state.watch(claude, "sys_info", {}, caller.signal, untilCancelled);
    const other = new AbortController();
    let otherEnded = false;
    void state
      .watch({ ...claude, name: "cursor" }, "sys_info", {}, other.signal, untilCancelled)
      .then(() => (otherEnded = true));
    const reply = await state.handle({ op: "lock", agent: "claude" });
    expect(reply).toMatchObject({ ok: true, cancelled: 1 });
    expect(await call).toMatchObject({ ok: false, error: { code: "core.lock.locked" } });
    expect(events.map((e) => e.event)).toContain("call_cancelled");
    expect(otherEnded).toBe(false);
    other.abort();
  });

  test("a lock the server's own lock check saw on another call cancels the agent's call under way", async () => {
    const { deps, catalogue, state } = setup();
    const call = state.watch(claude, "sys_info", {}, new AbortController().signal, untilCancelled);
    // set where no server was told
    lock(deps, catalogue, { agent: "claude" });
    const refused = await state.watch(claude, "sys_info", {}, new AbortController().signal, async () => ({
      ok: false,
      error: new RtaError("core.lock.locked", "locked"),
    }));
    expect(refused.ok).toBe(false);
    expect(await call).toMatchObject({ ok: false, error: { code: "core.lock.locked" } });
  });

  test("a call's end says its outcome, its time and the grant it spent", async () => {
    const { state, events } = setup();
    await state.watch(
      claude,
      "fs_write",
      { path: "a.txt", content: "x" },
      new AbortController().signal,
      async (_s, spent) => {
        spent("g-1");
        return { ok: true, value: { type: "text", text: "done" } };
      },
    );
    expect(events.find((e) => e.event === "call_started")).toMatchObject({ tool: "fs_write", args: { path: "a.txt" } });
    expect(events.find((e) => e.event === "call_ended")).toMatchObject({
      tool: "fs_write",
      outcome: "ok",
      grant: "g-1",
      duration_ms: 0,
    });
  });

  test("the caller's own cancellation reaches the call", async () => {
    const { state } = setup();
    const caller = new AbortController();
    const call = state.watch(claude, "sys_info", {}, caller.signal, untilCancelled);
    caller.abort(new RtaError("core.call.cancelled", "gone"));
    expect(await call).toMatchObject({ ok: false, error: { code: "core.call.cancelled" } });
  });
});
