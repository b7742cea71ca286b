/**
 * `rta agent log --session` with no id: the session that started last. A
 * server writes its start line at its first call, with the time it started,
 * so a session that started first may write its start line last.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { latestSession } from "../../src/cli/agentLog.ts";
import { tempDir } from "../support/fixtures.ts";

function line(session: string, time: string, seq: number, kind?: string, agent = "claude"): string {
  const l: Record<string, unknown> = {
    time,
    session,
    seq,
    agent,
    capability: "sys.info",
    outcome: "ok",
    duration_ms: 1,
    args: [],
  };
  if (kind) Object.assign(l, { kind, capability: "", outcome: kind });
  return JSON.stringify(l);
}

test("the session with the latest start time is the latest, whichever wrote its start line last", () => {
  const file = join(tempDir(), "agent-log.jsonl");
  writeFileSync(
    file,
    [
      // b started at 10:05 and was called first; a started at 10:00, idle until 10:07
      line("b", "2026-12-01T10:05:00Z", 1, "start"),
      line("b", "2026-12-01T10:06:00Z", 2),
      line("a", "2026-12-01T10:00:00Z", 1, "start"),
      line("a", "2026-12-01T10:07:00Z", 2, undefined, "cursor"),
      "",
    ].join("\n"),
  );
  expect(latestSession(file)).toBe("b");
  expect(latestSession(file, "cursor")).toBe("a");
  expect(latestSession(file, "claude")).toBe("b");
});
