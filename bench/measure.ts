/** Shared measuring for the benchmarks: wall time of whole processes, medians. */
import { spawnSync } from "node:child_process";

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
