import { afterEach, describe, expect, jest, test } from "bun:test";
import type { Deps } from "../../../src/gate/deps.ts";
import { endSession, type ServeOptions, SessionRecord, startSession } from "../../../src/mcp/serve/session.ts";
import { answersOut } from "../../../src/mcp/serve/stdio.ts";
import type { FileRecord, RecordEntry } from "../../../src/record/append.ts";

/** A record that keeps its lines, and notes that it was closed; while `full`, it takes none. */
function fakeRecord() {
  const lines: RecordEntry[] = [];
  const state = { closed: false, full: false };
  const record = {
    append: (e: RecordEntry) => {
      if (state.full) throw new Error("full");
      lines.push(e);
    },
    close: () => {
      state.closed = true;
    },
  } as unknown as FileRecord;
  return { lines, state, record };
}

function options(record: SessionRecord, said: string[]): ServeOptions {
  return {
    record,
    session: "abcd1234",
    say: (line: string) => said.push(line),
    deps: { clock: { now: () => Date.UTC(2026, 0, 2, 3, 4, 5) } } as unknown as Deps,
  } as unknown as ServeOptions;
}

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

describe("a session's record", () => {
  test("the start line waits for the session's first line: a start and tools/list touch no record", () => {
    const { lines, state, record } = fakeRecord();
    const sink = new SessionRecord(record);
    startSession(options(sink, []), "stdio");
    expect(lines).toEqual([]);
    // a start line that cannot be written refuses the line after it, and is written first once it can be
    state.full = true;
    expect(() => sink.append(call)).toThrow("full");
    state.full = false;
    sink.append(call);
    sink.append(call);
    expect(lines.map((l) => [l.kind ?? l.outcome, l.time])).toEqual([
      ["start", "2026-01-02T03:04:05.000Z"],
      ["ok", "2026-01-02T03:04:06.000Z"],
      ["ok", "2026-01-02T03:04:06.000Z"],
    ]);
    expect(lines[0]?.pid).toBe(process.pid);
  });

  test("start and end lines carry the clock's time; after the end no line is written, and a call is refused", () => {
    const { lines, state, record } = fakeRecord();
    const sink = new SessionRecord(record);
    const said: string[] = [];
    const o = options(sink, said);
    startSession(o, "stdio");
    endSession(o, "stdio", 0);
    expect(lines.map((l) => [l.kind, l.time, l.session, l.transport])).toEqual([
      ["start", "2026-01-02T03:04:05.000Z", "abcd1234", "stdio"],
      ["end", "2026-01-02T03:04:05.000Z", "abcd1234", "stdio"],
    ]);
    expect(state.closed).toBe(true);
    expect(() => sink.append({ ...(lines[0] as RecordEntry), kind: undefined })).toThrow("the session has ended");
    expect(said).toEqual([]);
  });

  test("calls that did not stop are said before the end line; --verbose hears calls, not marks", () => {
    const { record } = fakeRecord();
    const heard: RecordEntry[] = [];
    const sink = new SessionRecord(record, (e) => heard.push(e));
    const said: string[] = [];
    const o = options(sink, said);
    startSession(o, "http");
    sink.append(call);
    endSession(o, "http", 2);
    expect(said).toEqual(["rta: 2 call(s) did not stop when cancelled; ending without their record lines"]);
    expect(heard.map((e) => e.capability)).toEqual(["sys.info"]);
  });

  test("a batching record's end line, sent while the start line's batch is on its way, is written after it", async () => {
    const lines: RecordEntry[] = [];
    const batches: (() => void)[] = [];
    const state = { closed: false };
    // each line is committed when its batch is let go, as a PostgreSQL store's record commits them
    const record = {
      append: (e: RecordEntry) =>
        new Promise<void>((resolve) =>
          batches.push(() => {
            lines.push(e);
            resolve();
          }),
        ),
      close: () => {
        state.closed = true;
      },
    } as unknown as FileRecord;
    const sink = new SessionRecord(record);
    const o = options(sink, []);
    startSession(o, "stdio");
    const first = sink.append(call);
    const ended = endSession(o, "stdio", 1);
    for (const go of batches.splice(0)) go();
    await first;
    for (const go of batches.splice(0)) go();
    await ended;
    expect(lines.map((l) => l.kind ?? l.outcome)).toEqual(["start", "ok", "end"]);
    expect(state.closed).toBe(true);
    expect(() => sink.append(call)).toThrow("the session has ended");
  });
});

/**
 * A stdio client that closed its end is answered the calls whose run is over (answersOut), CANCEL_GRACE_MS at most:
 * the wait leaves no timer behind once it is over. One left pending kept the process, its session ended and its
 * record closed, for the whole grace: every script that piped its calls to `rta mcp serve` waited 2 s more for it.
 */
describe("answersOut", () => {
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
});
