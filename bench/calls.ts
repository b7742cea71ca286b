/**
 * Per-call cost of rta builds against each other and the floor (a bare SDK v2
 * server with one echo tool, compiled the same way), in one run:
 * `bun bench/calls.ts [RTA_BINARY...]` (default dist/rta). Each binary serves
 * sys_info, jwt_decode and fs_read of a 4 KiB file over stdio; rounds are
 * interleaved (A B A B ...) so the machine's noise falls on every binary
 * alike, and the median round is printed in calls per second.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { callRate } from "./mcpDriver.ts";
import { benchDir, compile, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const given = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const binaries = given.length > 0 ? given.map((b) => resolve(b)) : [join(root, "dist", "rta")];
const ROUNDS = 5;
const CALLS = 1000;
const { dir, env } = benchDir("calls");
const files = join(dir, "files");
const TOKEN =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

interface Workload {
  name: string;
  tool: string;
  args: Record<string, unknown>;
}

const workloads: Workload[] = [
  { name: "sys_info", tool: "sys_info", args: {} },
  { name: "jwt_decode", tool: "jwt_decode", args: { token: TOKEN } },
  { name: "fs_read 4 KiB", tool: "fs_read", args: { path: join(files, "4k.txt") } },
];

/** Calls per second over CALLS sequential calls of one tool, after a warm-up. */
function rate(cmd: string[], tool: string, args: Record<string, unknown>): Promise<number> {
  return callRate(cmd, env, tool, args, CALLS);
}

try {
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, "4k.txt"), `${"0123456789abcdef".repeat(255)}\n${"x".repeat(15)}`);
  const floor = compile(join(import.meta.dir, "fixtures", "floorServer.ts"), join(dir, "floor"));
  const rates = new Map<string, number[]>();
  const add = (key: string, v: number) => rates.set(key, [...(rates.get(key) ?? []), v]);
  for (let round = 0; round < ROUNDS; round++) {
    add("floor echo", await rate([floor], "echo", {}));
    for (const [i, bin] of binaries.entries()) {
      for (const w of workloads)
        add(`${i}:${w.name}`, await rate([bin, "mcp", "serve", "--root", files], w.tool, w.args));
    }
  }
  const floorRate = median(rates.get("floor echo") ?? []);
  console.log(`per-call cost over stdio, calls/s, median of ${ROUNDS} interleaved rounds of ${CALLS} calls`);
  console.log(`  floor (bare SDK v2, echo)  ${floorRate.toFixed(0)}`);
  for (const [i, bin] of binaries.entries()) {
    console.log(`  ${binaries.length > 1 ? `[${i}] ` : ""}${bin}`);
    for (const w of workloads) {
      const r = median(rates.get(`${i}:${w.name}`) ?? []);
      const us = 1e6 / r;
      const base = i > 0 ? median(rates.get(`0:${w.name}`) ?? []) : undefined;
      console.log(
        `    ${w.name.padEnd(15)} ${r.toFixed(0).padStart(6)}/s  ${us.toFixed(0).padStart(4)} us/call  ${(r / floorRate).toFixed(2)}x floor${base ? `  ${(r / base).toFixed(2)}x [0]` : ""}`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
