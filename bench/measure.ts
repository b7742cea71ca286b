/** Shared measuring for the benchmarks: wall time of whole processes, medians, a scratch dir, a compiled floor. */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Median wall time in ms of `runs` runs of a command, after one warm-up run. */
export function wallMedian(cmd: string, args: string[], runs = 20, env: NodeJS.ProcessEnv = process.env): number {
  spawnSync(cmd, args, { stdio: "ignore", env });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: "ignore", env });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}`);
  }
  return median(times);
}

export function fmt(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

/** A scratch dir for one benchmark and the environment its servers run in: their own data and config dirs, HOME. */
export function benchDir(name: string): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), `rta-bench-${name}-`));
  const env = { PATH: process.env.PATH ?? "", RTA_DATA_DIR: join(dir, "data"), RTA_CONFIG_DIR: join(dir, "config") };
  return { dir, env: { ...env, HOME: dir } };
}

/** Compiles `entry` as rta is compiled (a floor server, a fixture) to `out`; returns `out`, or throws. */
export function compile(entry: string, out: string, show = false): string {
  const r = spawnSync(
    process.execPath,
    ["build", entry, "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", out],
    { stdio: show ? "inherit" : "ignore" },
  );
  if (r.status !== 0) throw new Error(`could not compile ${entry}`);
  return out;
}
