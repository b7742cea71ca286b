import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { type AgentOrigin, type Call, person } from "../../src/core/call.ts";
import { ConfigSource, parseConfig, readConfig } from "../../src/core/config.ts";
import { limitFor } from "../../src/core/configLimits.ts";
import { GateStore } from "../../src/gate/gateStore.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { checkResourceRate } from "../../src/gate/rateLimit.ts";
import { type fixedClock, grantFor, tempDir, testDeps } from "../support/fixtures.ts";

const T0 = 1_800_000_000_000;
const store = () => new GateStore(join(tempDir(), "data", "gate.db"));
const agent: AgentOrigin = { kind: "agent", name: "claude", client: "test 1.0", session: "s1", transport: "memory" };
const catalogue = builtinCatalogue();

describe("the bucket", () => {
  test("starts full: a minute's calls at once (the burst), then none", () => {
    const s = store();
    for (let i = 0; i < 3; i++) expect(s.takeToken("claude", "fs.read", 3, T0)).toEqual({ taken: true });
    expect(s.takeToken("claude", "fs.read", 3, T0)).toEqual({ taken: false, waitMs: 20_000 });
  });

  test("refills by its calls a minute, exactly, whatever the rate", () => {
    const s = store();
    for (let i = 0; i < 120; i++) s.takeToken("claude", "fs.read", 120, T0);
    expect(s.takeToken("claude", "fs.read", 120, T0 + 499)).toEqual({ taken: false, waitMs: 1 });
    expect(s.takeToken("claude", "fs.read", 120, T0 + 500)).toEqual({ taken: true });
    expect(s.takeToken("claude", "fs.read", 120, T0 + 500)).toEqual({ taken: false, waitMs: 500 });
    // 7 a minute: 60000/7 ms is no whole number, and still no call is lost or made up over a minute
    for (let i = 0; i < 7; i++) s.takeToken("claude", "x.y", 7, T0);
    let taken = 0;
    for (let t = T0; t <= T0 + 60_000; t += 1) if (s.takeToken("claude", "x.y", 7, t).taken) taken++;
    expect(taken).toBe(7);
  });

  test("never holds more than a minute of calls, however long it sat, nor refills when a clock runs back", () => {
    const s = store();
    s.takeToken("claude", "fs.read", 2, T0);
    expect(s.takeToken("claude", "fs.read", 2, T0 + 3_600_000).taken).toBe(true);
    expect(s.takeToken("claude", "fs.read", 2, T0 + 3_600_000).taken).toBe(true);
    expect(s.takeToken("claude", "fs.read", 2, T0 + 3_600_000).taken).toBe(false);
    // another server's clock 10 s behind neither refills the bucket nor moves its time back
    expect(s.takeToken("claude", "fs.read", 2, T0 + 3_590_000)).toEqual({ taken: false, waitMs: 30_000 });
  });

  test("a bucket full again (a minute since its last call) is deleted: a name per call leaves no row for good", () => {
    const file = join(tempDir(), "data", "gate.db");
    const s = new GateStore(file);
    const rows = () => new Database(file, { readonly: true }).query("SELECT count(*) AS n FROM rate_buckets").get();
    for (let i = 0; i < 500; i++) expect(s.takeToken(`name-${i}`, "fs.read", 1, T0).taken).toBe(true);
    expect(s.takeToken("late", "fs.read", 1, T0 + 30_000).taken).toBe(true);
    expect(rows()).toEqual({ n: 501 });
    // within the minute the rows are kept, and each bucket is as empty as it was
    expect(s.takeToken("name-1", "fs.read", 1, T0 + 59_999)).toEqual({ taken: false, waitMs: 1 });
    expect(s.takeToken("name-2", "fs.read", 1, T0 + 60_001).taken).toBe(true);
    // a minute after, the next take deletes them: the late one, name-1 (asked at +59.999 s) and name-2 are left
    expect(rows()).toEqual({ n: 3 });
    expect(s.takeToken("name-2", "fs.read", 1, T0 + 60_002).taken).toBe(false);
    expect(s.takeToken("late", "fs.read", 1, T0 + 60_002).taken).toBe(false);
    expect(s.takeToken("name-3", "fs.read", 1, T0 + 60_002).taken).toBe(true);
  });

  test("one bucket per agent and capability; an agent's name whatever its case is one agent", () => {
    const s = store();
    expect(s.takeToken("claude", "fs.read", 1, T0).taken).toBe(true);
    expect(s.takeToken("CLAUDE", "fs.read", 1, T0).taken).toBe(false);
    expect(s.takeToken("cursor", "fs.read", 1, T0).taken).toBe(true);
    expect(s.takeToken("claude", "fs.stat", 1, T0).taken).toBe(true);
  });

  test("a limit lowered since caps what the bucket holds", () => {
    const s = store();
    s.takeToken("claude", "fs.read", 600, T0);
    expect(s.takeToken("claude", "fs.read", 1, T0).taken).toBe(true);
    expect(s.takeToken("claude", "fs.read", 1, T0).taken).toBe(false);
  });

  test("two stores on one gate.db spend from one bucket", () => {
    const file = join(tempDir(), "data", "gate.db");
    const a = new GateStore(file);
    const b = new GateStore(file);
    let taken = 0;
    for (let i = 0; i < 10; i++) for (const s of [a, b]) if (s.takeToken("claude", "sys.info", 5, T0).taken) taken++;
    expect(taken).toBe(5);
  });
});

describe("[limits] in config", () => {
  test("reads calls_per_minute and overrides by capability or area; the capability's own line wins", () => {
    const c = parseConfig(
      'roots = ["/srv"]\n[limits]\ncalls_per_minute = 600\n[limits.capabilities]\n"fs.read" = 120\nfs = 30\n',
    );
    expect(c.limits).toEqual({ calls_per_minute: 600, capabilities: { "fs.read": 120, fs: 30 } });
    const limits = c.limits ?? { capabilities: {} };
    expect(limitFor(limits, "fs.read", "fs")).toBe(120);
    expect(limitFor(limits, "fs.stat", "fs")).toBe(30);
    expect(limitFor(limits, "sys.info", "sys")).toBe(600);
    expect(limitFor({ capabilities: { proc: 10 } }, "sys.info", "sys")).toBeUndefined();
    expect(parseConfig("roots = []\n").limits).toBeUndefined();
  });

  test("refuses, naming the key, what is no limit", () => {
    const problems = (text: string) => readConfig(text).problems.map((p) => p.message);
    expect(problems("limits = 5\n")).toEqual([
      "config.toml: [limits] must be a table (calls_per_minute = 600, and [limits.capabilities])",
    ]);
    expect(problems("[limits]\ncalls_per_minute = 0\n")).toEqual([
      "config.toml: [limits] calls_per_minute must be a whole number of calls a minute, from 1 to 600000",
    ]);
    expect(problems('[limits]\ncalls_per_minute = "600"\n')).toHaveLength(1);
    expect(problems("[limits]\ncalls_per_minute = 1.5\n")).toHaveLength(1);
    expect(problems("[limits]\ncalls_per_minute = 600001\n")).toHaveLength(1);
    expect(problems("[limits]\nper_minute = 6\n")).toEqual([
      'config.toml: [limits] has no setting "per_minute" (calls_per_minute and capabilities are known)',
    ]);
    expect(problems("[limits.capabilities]\nfs_read = 6\n")).toEqual([
      'config.toml: [limits.capabilities] "fs_read" names no capability or area (write fs.read, not fs_read)',
    ]);
    expect(problems('[limits.capabilities]\n"fs.read" = -1\n')).toEqual([
      'config.toml: [limits.capabilities] "fs.read" must be a whole number of calls a minute, from 1 to 600000',
    ]);
    expect(problems("[limits]\ncapabilities = 3\n")).toHaveLength(1);
  });
});

/** Test deps whose config.toml says `text`. */
function depsWith(text: string) {
  const deps = testDeps();
  const file = join(deps.dirs.config, "config.toml");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return { ...deps, config: new ConfigSource(file) };
}

const call = (capability: string, over: Partial<Call> = {}): Call => ({ capability, args: {}, origin: agent, ...over });

describe("stage 6a, rate", () => {
  test("past the limit an agent's call is refused with the seconds to wait, and the record has the refusal", async () => {
    const deps = depsWith("[limits]\ncalls_per_minute = 2\n");
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(true);
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(true);
    const third = await runCall(call("sys_info"), catalogue, deps);
    if (third.ok) throw new Error("expected a refusal");
    expect(third.error.code).toBe("core.rate.limited");
    expect(third.error.message).toBe(
      "sys.info is limited to 2 calls a minute for agent claude: the next can be sent in 30 s",
    );
    expect(third.error.retryAfter).toBe(30);
    expect(deps.record.lines.at(-1)).toMatchObject({ capability: "sys_info", outcome: "core.rate.limited" });
    // 30 s on, one call more
    (deps.clock as ReturnType<typeof fixedClock>).set(deps.clock.now() + 30_000);
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(true);
  });

  test("a person's own calls and a call that does not count are never limited", async () => {
    const deps = depsWith("[limits]\ncalls_per_minute = 1\n");
    for (let i = 0; i < 3; i++)
      expect((await runCall(call("sys.info", { origin: person }), catalogue, deps)).ok).toBe(true);
    for (let i = 0; i < 3; i++)
      expect((await runCall(call("sys_info", { countsTowardLimit: false }), catalogue, deps)).ok).toBe(true);
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(true);
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(false);
  });

  test("without [limits], or with none for the capability, no bucket is asked", async () => {
    for (const text of ["", '[limits.capabilities]\n"fs.read" = 1\n']) {
      const deps = depsWith(text);
      deps.gate().takeToken = () => {
        throw new Error("asked");
      };
      for (let i = 0; i < 3; i++) expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(true);
    }
  });

  test("a locked call and an ungranted one spend nothing; a rate-limited one gives its grant's use back", async () => {
    const deps = depsWith('[limits]\n[limits.capabilities]\n"sys.info" = 1\n"fs.write" = 1\n');
    const lock = deps
      .gate()
      .lock({ agent: "claude", target: "sys.info", issued_at: 0, expires_at: null, issued_by: "t" });
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(false);
    deps.gate().lift({ id: lock.id }, deps.clock.now());
    expect((await runCall(call("sys_info"), catalogue, deps)).ok).toBe(true);
    const write = call("fs_write", { args: { path: join(dirname(deps.dirs.data), "a.txt"), content: "x" } });
    const ungranted = await runCall(write, catalogue, deps);
    expect(ungranted.ok ? "" : ungranted.error.code).toBe("core.grant.required");
    const g = grantFor(deps, { target: "fs.write", max_uses: 3 });
    const first = await runCall(write, catalogue, deps);
    expect(first.ok ? "" : first.error.message).toBe("");
    const limited = await runCall(write, catalogue, deps);
    expect(limited.ok ? "" : limited.error.code).toBe("core.rate.limited");
    expect(deps.gate().get(g.id)?.uses).toBe(1);
  });

  test("a config that stops reading keeps the limits it last read; one that never read limits nothing", async () => {
    const deps = depsWith("[limits]\ncalls_per_minute = 1\n");
    let look = 0;
    const config = new ConfigSource(deps.config.file, () => look);
    const limited = { ...deps, config };
    expect((await runCall(call("sys_info"), catalogue, limited)).ok).toBe(true);
    writeFileSync(deps.config.file, "[limits]\ncalls_per_minute = 0\n");
    look += 1000;
    expect(config.current().kind).toBe("stale");
    const refused = await runCall(call("sys_info"), catalogue, limited);
    expect(refused.ok ? "" : refused.error.code).toBe("core.rate.limited");
    const never = depsWith("[limits]\ncalls_per_minute = 0\n");
    for (let i = 0; i < 3; i++) expect((await runCall(call("sys_info"), catalogue, never)).ok).toBe(true);
  });

  test("resource reads count against calls_per_minute, and a refused read is on the record", () => {
    const deps = depsWith("[limits]\ncalls_per_minute = 1\n");
    const config = parseConfig("[limits]\ncalls_per_minute = 1\n");
    expect(checkResourceRate("rta://grants", agent, config, deps)).toBeUndefined();
    const refused = checkResourceRate("rta://grants", agent, config, deps);
    expect(refused?.code).toBe("core.rate.limited");
    expect(refused?.retryAfter).toBe(60);
    expect(refused?.message).toBe(
      "rta://grants is limited to one read a minute for agent claude: the next can be sent in 60 s",
    );
    expect(deps.record.lines.at(-1)).toMatchObject({ capability: "rta://grants", outcome: "core.rate.limited" });
    expect(checkResourceRate("rta://grants", agent, parseConfig(""), deps)).toBeUndefined();
  });
});
