/**
 * The progress line of a long walk: shown on a terminal only, after about a
 * second, redrawn in place at most every REDRAW_MS, cleared at the end with
 * spaces (no escape code), and never when stdout or stderr is piped.
 */
import { describe, expect, test } from "bun:test";
import { type Io, processIo } from "../../src/cli/io.ts";
import { PROGRESS_AFTER_MS, progressLine, REDRAW_MS } from "../../src/cli/progress.ts";

function screen(stdoutIsTTY: boolean, stderrIsTTY: boolean) {
  let err = "";
  const io: Io = { ...processIo(), out: () => {}, err: (t) => (err += t), stdoutIsTTY, stderrIsTTY };
  let now = 0;
  return { io, clock: () => now, at: (ms: number) => (now = ms), err: () => err };
}

describe("progressLine", () => {
  test("nothing before a second, then one line overwritten in place and wiped at the end", () => {
    const s = screen(true, true);
    const line = progressLine(s.io, s.clock);
    if (!line) throw new Error("a terminal gets a progress line");
    s.at(PROGRESS_AFTER_MS - 1);
    line.tell({ files: 5, bytes: 10 });
    expect(s.err()).toBe("");
    s.at(PROGRESS_AFTER_MS);
    line.tell({ files: 12_000, bytes: 3 * 1024 * 1024 });
    expect(s.err()).toBe("\r12000 entries, 3.0 MiB seen");
    s.at(PROGRESS_AFTER_MS + REDRAW_MS - 1);
    line.tell({ files: 12_001, bytes: 3 * 1024 * 1024 });
    expect(s.err()).toBe("\r12000 entries, 3.0 MiB seen"); // too soon to redraw
    s.at(PROGRESS_AFTER_MS + REDRAW_MS);
    line.tell({ files: 1, bytes: 0 });
    const wide = "12000 entries, 3.0 MiB seen".length;
    expect(s.err()).toBe(`\r12000 entries, 3.0 MiB seen\r1 entry, 0 B seen${" ".repeat(wide - 17)}`);
    line.clear();
    expect(s.err().endsWith(`\r${" ".repeat(wide)}\r`)).toBe(true);
    expect(s.err()).not.toContain("\x1b");
  });

  test("a walk shorter than a second leaves nothing, and clear writes nothing", () => {
    const s = screen(true, true);
    const line = progressLine(s.io, s.clock);
    line?.tell({ files: 1, bytes: 1 });
    line?.clear();
    expect(s.err()).toBe("");
  });

  test("piped stdout or piped stderr gets no progress line at all", () => {
    expect(progressLine(screen(false, true).io)).toBeUndefined();
    expect(progressLine(screen(true, false).io)).toBeUndefined();
  });
});
