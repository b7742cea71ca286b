/**
 * The progress line of a long walk: shown on a terminal only, after about a
 * second, redrawn in place at most every REDRAW_MS, cleared at the end with
 * spaces (no escape code), and never when stdout or stderr is piped.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Io, processIo } from "../../src/cli/io.ts";
import { PROGRESS_AFTER_MS, progressLine, REDRAW_MS, WALK_QUIET_MS } from "../../src/cli/progress.ts";
import { tempDir } from "../support/fixtures.ts";
import { runCli } from "../support/runCli.ts";
import { startStandIn } from "../support/standIn.ts";

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

  test("a call waiting on a service says so after a second, and not while a walk is telling", () => {
    const s = screen(true, true);
    const line = progressLine(s.io, s.clock);
    if (!line) throw new Error("a terminal gets a progress line");
    s.at(PROGRESS_AFTER_MS - 1);
    line.waiting("endoflife.date");
    expect(s.err()).toBe("");
    s.at(PROGRESS_AFTER_MS + 100);
    line.tell({ files: 3, bytes: 0 });
    s.at(PROGRESS_AFTER_MS + 100 + WALK_QUIET_MS - 1);
    line.waiting("osv.dev");
    expect(s.err()).toBe("\r3 entries, 0 B seen"); // the walk told something a moment ago
    s.at(3_500);
    line.waiting("osv.dev");
    expect(s.err()).toBe("\r3 entries, 0 B seen\rasking osv.dev, 3 s");
    line.clear();
    expect(s.err().endsWith(`\r${" ".repeat(19)}\r`)).toBe(true);
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

describe("a long walk on the command line", () => {
  // a clock that moves 50 ms each time it is read: the walk runs past a second after some twenty looks
  function slowClock() {
    let now = 1_700_000_000_000;
    return { now: () => (now += 50) };
  }

  test("on a terminal, fs grep shows what it has seen on stderr and wipes it before the result", async () => {
    const root = tempDir();
    for (let i = 0; i < 60; i++) writeFileSync(join(root, `f${i}.txt`), i === 59 ? "needle\n" : "hay\n");
    const r = await runCli(["fs", "grep", "needle", root], { tty: true, clock: slowClock(), env: { NO_COLOR: "1" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\r\d+ entries, \d+ B seen/);
    const wipe = r.stderr.slice(r.stderr.lastIndexOf("\r", r.stderr.length - 2));
    expect(wipe).toMatch(/^\r +\r$/);
    expect(r.stdout).toContain("f59.txt");
    expect(r.stdout).not.toContain("seen");
  });

  test("piped, the same walk shows nothing on stderr", async () => {
    const root = tempDir();
    for (let i = 0; i < 60; i++) writeFileSync(join(root, `f${i}.txt`), "hay\n");
    const r = await runCli(["fs", "find", root, "--json"], { clock: slowClock() });
    expect(r).toMatchObject({ code: 0, stderr: "" });
  });
});

describe("a read that asks a service, on the command line", () => {
  test("on a terminal, it says what it waits on once it has waited a second, and wipes it before the result", async () => {
    // The stand-in holds its answer until the CLI has looked at the clock three times since it was asked: nothing
    // but the waiting tick reads it then, and each read moves it 600 ms, so the line is drawn before the answer.
    let reads = 0;
    let askedAt: number | undefined;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const clock = {
      now: () => {
        reads++;
        if (askedAt !== undefined && reads >= askedAt + 3) release();
        return 1_700_000_000_000 + reads * 600;
      },
    };
    const products = readFileSync(join(import.meta.dir, "..", "fixtures", "eol", "products.json"), "utf8");
    const service = startStandIn({
      "/api/v1/products": async () => {
        askedAt = reads;
        await held;
        return new Response(products, { headers: { "content-type": "application/json" } });
      },
    });
    try {
      const config = tempDir();
      writeFileSync(join(config, "config.toml"), `[defaults.eol]\napi_url = "${service.url}"\n`);
      const r = await runCli(["eol", "products"], { tty: true, clock, env: { NO_COLOR: "1", RTA_CONFIG_DIR: config } });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^\rasking endoflife\.date, \d+ s/);
      expect(r.stderr).toMatch(/\r +\r$/);
      expect(r.stdout).toContain("nodejs");
      expect(r.stdout).not.toContain("asking");
    } finally {
      await service.stop();
    }
  });
});
