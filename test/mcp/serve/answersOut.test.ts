/**
 * A stdio client that closed its end is answered the calls whose run is over (answersOut), CANCEL_GRACE_MS at most:
 * the wait leaves no timer behind once it is over. One left pending kept the process, its session ended and its
 * record closed, for the whole grace: every script that piped its calls to `rta mcp serve` waited 2 s more for it.
 */
import { afterEach, expect, jest, test } from "bun:test";
import { SessionRecord } from "../../../src/mcp/serve/session.ts";
import { answersOut } from "../../../src/mcp/serve/stdio.ts";
import type { FileRecord, RecordEntry } from "../../../src/record/append.ts";

const call: RecordEntry = {
  time: "2026-01-02T03:04:06.000Z",
  session: "abcd1234",
  agent: "claude",
  client: "c",
  transport: "stdio",
  capability: "sys.info",
  outcome: "ok",
  duration_ms: 1,
  args: [],
};

afterEach(() => {
  jest.useRealTimers();
});

test("with a record that writes each line as it comes, the wait is over at once and leaves no timer", async () => {
  const record = new SessionRecord({ append: () => {}, close: () => {} } as unknown as FileRecord);
  record.append(call);
  jest.useFakeTimers();
  await answersOut(record);
  expect(jest.getTimerCount()).toBe(0);
});

test("with a batching record, the wait is over once its lines are committed, and leaves no timer", async () => {
  let commit = () => {};
  const batch = new Promise<void>((resolve) => {
    commit = resolve;
  });
  const record = new SessionRecord({ append: () => batch, close: () => {} } as unknown as FileRecord);
  void record.append(call);
  jest.useFakeTimers();
  const waited = answersOut(record);
  expect(record.unsettledLines).toBe(true);
  commit();
  await waited;
  expect(record.unsettledLines).toBe(false);
  expect(jest.getTimerCount()).toBe(0);
});
