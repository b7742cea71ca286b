/**
 * Stage 9 in process: which calls wait for a person, what the person is
 * shown, what each answer does, and that a refusal spends nothing a later
 * stage guards (the path is never opened, the grant's use is given back).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { person } from "../../src/core/call.ts";
import {
  argLines,
  type ConsentAnswer,
  type ConsentPrompt,
  type ConsentSeat,
  needsConsent,
} from "../../src/gate/consent.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { parsePolicy } from "../../src/gate/policy.ts";
import { testDeps } from "../support/fixtures.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c 1", session: "s1", transport: "memory" };
const catalogue = builtinCatalogue();

function seat(answer: ConsentAnswer): ConsentSeat & { asked: ConsentPrompt[] } {
  const asked: ConsentPrompt[] = [];
  return {
    asked,
    ask: async (prompt) => {
      asked.push(prompt);
      return answer;
    },
  };
}

function depsWith(policy: string) {
  const deps = testDeps();
  mkdirSync(deps.dirs.config, { recursive: true });
  writeFileSync(join(deps.dirs.config, "policy.toml"), policy);
  return deps;
}

describe("the confirm list", () => {
  test("names capabilities or areas, and is read from policy.toml with its timeout", () => {
    const p = parsePolicy('confirm = ["fs.rm", "proc"]\nconsent_timeout = "30s"\nask_for_grants = true\n');
    expect(p).toMatchObject({ confirm: ["fs.rm", "proc"], consentTimeout: 30_000, askForGrants: true });
    const fsRm = catalogue.byName("fs.rm");
    const fsRead = catalogue.byName("fs.read");
    if (!fsRm || !fsRead) throw new Error("no fs.rm");
    expect(needsConsent(fsRm, ["fs.rm"])).toBe(true);
    expect(needsConsent(fsRead, ["fs"])).toBe(true);
    expect(needsConsent(fsRead, ["fs.rm"])).toBe(false);
    expect(() => parsePolicy('confirm = ["fs_rm"]\n')).toThrow(/confirm names "fs_rm"/);
    expect(() => parsePolicy("ask_for_grants = 1\n")).toThrow(/true or false/);
  });

  test("an argument cannot write lines of its own into the question; a long one is cut", () => {
    const lines = argLines({ path: "a\nrecursive: false", raw: "\x1b[2J", long: "x".repeat(500), n: 3 });
    expect(lines).toEqual([
      'path: "a\\nrecursive: false"',
      'raw: "\\u001b[2J"',
      `long: ${"x".repeat(200)}… (500 characters in all)`,
      "n: 3",
    ]);
  });
});

describe("stage 9 in the pipeline", () => {
  const call = (args: Record<string, unknown>): Call => ({ capability: "fs_stat", args, origin: agent });

  test("accepted runs; the person was shown the call as it runs, secrets masked", async () => {
    const deps = depsWith('confirm = ["fs.stat"]\n');
    const s = seat("accept");
    const out = await runCall(call({ path: "." }), catalogue, deps, { consent: s });
    expect(out.ok).toBe(true);
    expect(s.asked[0]).toMatchObject({ capability: "fs.stat", agent: "claude", args: { path: "." }, kind: "consent" });
    expect(s.asked[0]?.message).toStartWith("claude asks to run fs.stat");
  });

  for (const [answer, code] of [
    ["decline", "core.consent.declined"],
    ["timeout", "core.consent.declined"],
    ["unavailable", "core.consent.unavailable"],
  ] as const) {
    test(`${answer}: refused ${code}, before any path is opened`, async () => {
      const deps = depsWith('confirm = ["fs"]\n');
      // a path outside every root would be refused by stage 10: stage 9 comes first
      const out = await runCall(call({ path: "/nowhere/at/all" }), catalogue, deps, { consent: seat(answer) });
      expect(out.ok ? undefined : out.error.code).toBe(code);
    });
  }

  test("no seat: refused unavailable; a person at the terminal is never asked", async () => {
    const deps = depsWith('confirm = ["fs.stat"]\n');
    const out = await runCall(call({ path: "." }), catalogue, deps);
    expect(out.ok ? undefined : out.error.code).toBe("core.consent.unavailable");
    const s = seat("decline");
    const mine = await runCall({ capability: "fs.stat", args: { path: "." }, origin: person }, catalogue, deps, {
      consent: s,
    });
    expect(mine.ok).toBe(true);
    expect(s.asked).toHaveLength(0);
  });

  test("a capability on no list is not asked about", async () => {
    const deps = depsWith('confirm = ["fs.rm"]\n');
    const s = seat("decline");
    expect((await runCall(call({ path: "." }), catalogue, deps, { consent: s })).ok).toBe(true);
    expect(s.asked).toHaveLength(0);
  });
});

test("the question itself shows a forged line quoted, never as a line of its own", async () => {
  const deps = depsWith('confirm = ["fs.stat"]\n');
  const s = seat("decline");
  await runCall({ capability: "fs_stat", args: { path: "a\nrecursive: false" }, origin: agent }, catalogue, deps, {
    consent: s,
  });
  expect(s.asked[0]?.message.split("\n")).toEqual([
    "claude asks to run fs.stat (Describe a file or directory: type, size, mode, owner and times)",
    'path: "a\\nrecursive: false"',
    "Allow it?",
  ]);
});
