import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { jwtDecode } from "../../src/capabilities/jwt/decode.ts";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { RtaError } from "../../src/core/errors.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { cutName, RECORDED_ARGS_BYTES, RECORDED_NAME_BYTES, recordedArgs } from "../../src/gate/recordCall.ts";
import { MemoryRecord, type RecordEntry } from "../../src/record/append.ts";
import { grantFor, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c 1", session: "s1", transport: "memory" };
const call = (capability: string, args: Record<string, unknown> = {}, origin = agent): Call => ({
  capability,
  args,
  origin,
});
const bytes = (s: string) => Buffer.byteLength(s);

/** A record that takes lines until told to fail, as a disk that fills up does. */
class FillingRecord extends MemoryRecord {
  full = false;
  override append(entry: RecordEntry): void {
    if (this.full) throw new RtaError("core.record.unavailable", "the record cannot be written");
    super.append(entry);
  }
}

describe("what a caller chose is bounded in the record", () => {
  test("a 3.9 MB tool name, agent name and client name are cut to 256 bytes", async () => {
    const huge = "x".repeat(3_900_000);
    const deps = testDeps();
    await runCall(call(huge, {}, { ...agent, name: huge, client: `${huge} 1` }), builtinCatalogue(), deps);
    const line = deps.record.lines[0];
    expect(line?.outcome).toBe("core.tool.unknown");
    for (const field of [line?.capability, line?.agent, line?.client]) expect(bytes(field ?? "")).toBe(256);
    expect(bytes(JSON.stringify(line))).toBeLessThan(16 * 1024);
  });

  test("a name is cut on a character, never inside one", () => {
    const name = "é".repeat(300);
    const cut = cutName(name);
    expect(bytes(cut)).toBeLessThanOrEqual(RECORDED_NAME_BYTES);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut).not.toContain("\uFFFD");
    expect(cutName("🙂".repeat(100)).replace("…", "")).toMatch(/^(🙂)+$/u);
    expect(cutName("short")).toBe("short");
  });

  test("argument names past a few KiB are cut, with their count, byte count and digest kept", () => {
    const names = Array.from({ length: 5000 }, (_, i) => `k${i}${"y".repeat(i % 7 === 0 ? 1000 : 1)}`);
    const kept = recordedArgs(names);
    expect(bytes(JSON.stringify(kept.args))).toBeLessThanOrEqual(RECORDED_ARGS_BYTES);
    expect(kept.args_cut).toEqual({
      names: 5000,
      bytes: bytes(JSON.stringify(names)),
      sha256: new Bun.CryptoHasher("sha256").update(JSON.stringify(names)).digest("hex"),
    });
    expect(recordedArgs(["path", "limit"])).toEqual({ args: ["path", "limit"] });
  });
});

describe("a call whose line cannot be written does not run", () => {
  test("refused as core.record.unavailable before it runs, and the grant's use is given back", async () => {
    let ran = 0;
    const counted = {
      ...jwtDecode,
      safety: "write" as const,
      run: async (...args: Parameters<typeof jwtDecode.run>) => {
        ran++;
        return jwtDecode.run(...args);
      },
    };
    const record = new FillingRecord();
    const deps = testDeps({ record });
    const grant = grantFor(deps, { target: "jwt.decode", max_uses: 1 });
    record.full = true;
    const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";
    const outcome = await runCall(call("jwt_decode", { token }), catalogueOf([counted]), deps);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("core.record.unavailable");
    expect(outcome.error.message).toBe("the call was not run: its line cannot be written to the record");
    expect(ran).toBe(0);
    expect(deps.gate().get(grant.id)?.uses).toBe(0);
    record.full = false;
    expect((await runCall(call("jwt_decode", { token }), catalogueOf([counted]), deps)).ok).toBe(true);
    expect(ran).toBe(1);
    expect(record.lines.map((l) => l.kind ?? l.outcome)).toEqual(["run", "ok"]);
  });

  test("a walk that makes parents makes none when the record is full: its line comes before its paths", async () => {
    const record = new FillingRecord();
    const deps = testDeps({ record });
    const root = deps.roots.roots[0] as string;
    const grant = grantFor(deps, { target: "fs.mkdir", max_uses: 1 });
    record.full = true;
    const outcome = await runCall(call("fs_mkdir", { path: "a/b/c", parents: true }), builtinCatalogue(), deps);
    expect(outcome.ok ? "ran" : outcome.error.code).toBe("core.record.unavailable");
    expect(existsSync(join(root, "a"))).toBe(false);
    expect(deps.gate().get(grant.id)?.uses).toBe(0);
    record.full = false;
    expect((await runCall(call("fs_mkdir", { path: "a/b/c", parents: true }), builtinCatalogue(), deps)).ok).toBe(true);
    expect(existsSync(join(root, "a", "b", "c"))).toBe(true);
    expect(record.lines.map((l) => l.kind ?? l.outcome)).toEqual(["run", "ok"]);
  });

  test("a call with effects writes its `run` line first, then its outcome", async () => {
    const deps = testDeps();
    grantFor(deps, { target: "fs.mkdir" });
    expect((await runCall(call("fs_mkdir", { path: "d" }), builtinCatalogue(), deps)).ok).toBe(true);
    expect(deps.record.lines.map((l) => l.kind ?? l.outcome)).toEqual(["run", "ok"]);
  });

  test("a read that reaches a destination the agent names keeps its `run` line first", async () => {
    const record = new FillingRecord();
    const deps = testDeps({ record });
    let ran = 0;
    const counted = {
      ...jwtDecode,
      reaches: "token",
      run: async (...args: Parameters<typeof jwtDecode.run>) => {
        ran++;
        return jwtDecode.run(...args);
      },
    };
    grantFor(deps, { target: "jwt.decode" });
    record.full = true;
    const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";
    const outcome = await runCall(call("jwt_decode", { token }), catalogueOf([counted]), deps);
    expect(outcome.ok ? "ran" : outcome.error.message).toBe(
      "the call was not run: its line cannot be written to the record",
    );
    expect(ran).toBe(0);
  });
});

describe("a free read that aims nowhere is answered only once its one line is written", () => {
  const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";

  test("it runs, but its answer is withheld as core.record.unavailable when its line cannot be written", async () => {
    let ran = 0;
    const counted = {
      ...jwtDecode,
      run: async (...args: Parameters<typeof jwtDecode.run>) => {
        ran++;
        return jwtDecode.run(...args);
      },
    };
    const record = new FillingRecord();
    const deps = testDeps({ record });
    record.full = true;
    const outcome = await runCall(call("jwt_decode", { token }), catalogueOf([counted]), deps);
    expect(ran).toBe(1);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("core.record.unavailable");
    expect(outcome.error.message).toBe("the answer was withheld: the call's line cannot be written to the record");
    expect(JSON.stringify(outcome)).not.toContain("alice");
    record.full = false;
    const again = await runCall(call("jwt_decode", { token }), catalogueOf([counted]), deps);
    expect(again.ok).toBe(true);
    expect(record.lines.map((l) => l.kind ?? l.outcome)).toEqual(["ok"]);
  });

  test("its own failure is withheld too: what failed can tell as much as what ran", async () => {
    const record = new FillingRecord();
    const deps = testDeps({ record });
    record.full = true;
    const outcome = await runCall(call("jwt_decode", { token: "not-a-token" }), builtinCatalogue(), deps);
    expect(outcome.ok ? "" : outcome.error.code).toBe("core.record.unavailable");
  });

  test("a refusal is still answered as itself when the record is full: it runs nothing", async () => {
    const record = new FillingRecord();
    record.full = true;
    const outcome = await runCall(call("nope_nope"), builtinCatalogue(), testDeps({ record }));
    expect(outcome.ok ? "" : outcome.error.code).toBe("core.tool.unknown");
  });
});

describe("bounds count bytes as the line writes them", () => {
  test("a name of control characters is cut to 256 bytes written out, on a whole escape", () => {
    const cut = cutName("\u0001".repeat(1000));
    expect(bytes(JSON.stringify(cut)) - 2).toBeLessThanOrEqual(RECORDED_NAME_BYTES);
    // 42 escapes of six bytes and the mark: as many as fit
    expect(cut).toBe(`${"\u0001".repeat(42)}…`);
  });
});
