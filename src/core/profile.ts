/**
 * The per-stage profile a benchmark turns on: `RTA_PROFILE=stages` in a
 * server's environment, read once when the process starts. Off, each mark is
 * one test of a constant and nothing is timed or kept.
 *
 * A call's time is cut into laps: the transport starts a call when its bytes
 * arrive (`callBegins`), each stage ends its lap under its name (`lap`), and
 * the answer's write ends the call (`callEnds`). Calls are timed one at a
 * time, as a benchmark sends them; calls that overlap share the laps, and a
 * message no stage takes a lap of (a notification, tools/list) is not counted. When the
 * process exits, the totals go to stderr as one line, `rta profile {json}`:
 * calls, microseconds per stage and in all, and the process's CPU time.
 */

import { writeSync } from "node:fs";

/** Whether this process profiles its calls; read once, at start. */
const PROFILING = process.env.RTA_PROFILE === "stages";

const totals = new Map<string, number>();
let calls = 0;
let began = 0;
let last = 0;
/** a call's bytes arrived and a stage has taken its lap since: the answer that follows ends a timed call */
let timed = false;

/** Marks the arrival of a message's bytes: the start of its first lap. Refuses nothing. */
export function callBegins(): void {
  if (!PROFILING) return;
  timed = false;
  began = performance.now();
  last = began;
}

/** Ends the running lap under `stage` and starts the next. Refuses nothing. */
export function lap(stage: string): void {
  if (!PROFILING || began === 0) return;
  timed = true;
  const now = performance.now();
  totals.set(stage, (totals.get(stage) ?? 0) + (now - last));
  last = now;
}

/** Ends the call: its last lap under `stage`, and its whole time from its bytes to its answer. Refuses nothing. */
export function callEnds(stage: string): void {
  if (!PROFILING || !timed) return;
  lap(stage);
  totals.set("total", (totals.get("total") ?? 0) + (last - began));
  calls++;
  timed = false;
}

/** What was measured so far: calls, microseconds per stage (summed), and the process's CPU in microseconds. */
function profileFigures(): { calls: number; us: Record<string, number>; cpu_us: number } {
  const us: Record<string, number> = {};
  for (const [stage, ms] of totals) us[stage] = Math.round(ms * 1000);
  const cpu = process.cpuUsage();
  return { calls, us, cpu_us: cpu.user + cpu.system };
}

if (PROFILING) process.on("exit", () => writeSync(2, `rta profile ${JSON.stringify(profileFigures())}\n`));
