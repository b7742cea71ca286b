/**
 * The four figures per-call cost is held to, side by side in one run:
 * `bun bench/acceptance.ts [RTA_BINARY]` (default dist/rta). Rounds are
 * interleaved, so the machine's noise falls on every server alike, and each
 * figure is the median of ROUNDS rounds:
 * - fs_read of a 4 KiB file, calls/s, against the official filesystem server
 *   (read_text_file, under node): target >= 3x (aim 5x);
 * - sys_info, calls/s, against the floor (a bare SDK v2 stdio server with one
 *   echo tool, compiled the same way): target >= 0.5x;
 * - cold start, spawn until the first tools/list is answered: <= 1.15x the floor;
 * - idle RSS, after initialize, tools/list and one call: <= 1.2x the floor.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, compile, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const rta = resolve(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? join(root, "dist", "rta"));
const ROUNDS = 5;
const CALLS = 1000;
const STARTS = 5;
const { dir, env } = benchDir("acceptance");
const files = join(dir, "files");
const file = join(files, "4k.txt");

async function call(d: Driver, name: string, args: Record<string, unknown>): Promise<void> {
  const r = await d.request("tools/call", { name, arguments: args });
  const result = r.result as { isError?: boolean } | undefined;
  if (!result || result.isError) throw new Error(`${name} failed: ${JSON.stringify(r).slice(0, 300)}`);
}

/** Calls per second over CALLS sequential calls, after a warm-up. */
async function rate(cmd: string[], name: string, args: Record<string, unknown>): Promise<number> {
  const d = new Driver(cmd, env);
  await d.initialize();
  for (let i = 0; i < 100; i++) await call(d, name, args);
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await call(d, name, args);
  const s = (performance.now() - t0) / 1000;
  await d.close();
  return CALLS / s;
}

/** Spawn until the first tools/list is answered, in ms, median of STARTS after one warm-up. */
async function coldStart(cmd: string[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= STARTS; i++) {
    const t0 = performance.now();
    const d = new Driver(cmd, env);
    await d.initialize();
    await d.request("tools/list");
    if (i > 0) times.push(performance.now() - t0);
    await d.close();
  }
  return median(times);
}

/** Resident memory in bytes once a server is initialized, has listed its tools and answered one call. */
async function idleRss(cmd: string[], name: string, args: Record<string, unknown>): Promise<number> {
  const d = new Driver(cmd, env);
  await d.initialize();
  await d.request("tools/list");
  await call(d, name, args);
  await Bun.sleep(200);
  const kb = readFileSync(`/proc/${d.proc.pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  await d.close();
  return Number(kb) * 1024;
}

try {
  mkdirSync(files, { recursive: true });
  writeFileSync(file, `${"0123456789abcdef".repeat(255)}\n${"x".repeat(15)}`);
  const floor = [compile(join(import.meta.dir, "fixtures", "floorServer.ts"), join(dir, "floor"))];
  const server = [rta, "mcp", "serve", "--root", files];
  const official = [
    "node",
    join(root, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
    files,
  ];
  const figures = new Map<string, number[]>();
  const add = (key: string, v: number) => figures.set(key, [...(figures.get(key) ?? []), v]);
  for (let round = 0; round < ROUNDS; round++) {
    add("rta fs_read", await rate(server, "fs_read", { path: file }));
    add("official read", await rate(official, "read_text_file", { path: file }));
    add("rta sys_info", await rate(server, "sys_info", {}));
    add("floor echo", await rate(floor, "echo", {}));
    add("rta start", await coldStart(server));
    add("floor start", await coldStart(floor));
    add("rta rss", await idleRss(server, "sys_info", {}));
    add("floor rss", await idleRss(floor, "echo", {}));
  }
  const m = (key: string) => median(figures.get(key) ?? []);
  const line = (what: string, a: string, b: string, ratio: number, target: string, met: boolean) =>
    console.log(
      `  ${what.padEnd(22)} ${a.padStart(12)}  ${b.padStart(26)}  ${ratio.toFixed(2)}x  ${target}  ${met ? "met" : "NOT MET"}`,
    );
  console.log(`acceptance, median of ${ROUNDS} interleaved rounds: ${rta}`);
  const reads = m("rta fs_read") / m("official read");
  line(
    "fs_read 4 KiB calls/s",
    m("rta fs_read").toFixed(0),
    `official ${m("official read").toFixed(0)}`,
    reads,
    "(target >= 3x, aim 5x)",
    reads >= 3,
  );
  const sys = m("rta sys_info") / m("floor echo");
  line(
    "sys_info calls/s",
    m("rta sys_info").toFixed(0),
    `floor echo ${m("floor echo").toFixed(0)}`,
    sys,
    "(target >= 0.5x)",
    sys >= 0.5,
  );
  const start = m("rta start") / m("floor start");
  line(
    "cold start",
    `${m("rta start").toFixed(1)} ms`,
    `floor ${m("floor start").toFixed(1)} ms`,
    start,
    "(target <= 1.15x)",
    start <= 1.15,
  );
  const rss = m("rta rss") / m("floor rss");
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  line("idle RSS", mib(m("rta rss")), `floor ${mib(m("floor rss"))}`, rss, "(target <= 1.2x)", rss <= 1.2);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
