/**
 * The file capabilities against the official filesystem server
 * (@modelcontextprotocol/server-filesystem, run under node), on the same files
 * in the same run:
 * - cold start until the first tools/list is answered (median of 10);
 * - sequential reads of a 4 KiB file, calls per second over 2,000 calls;
 * - listing a 10,000-entry directory (median of 10);
 * - peak RSS when asked for a 100 MB file.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const { dir, env } = benchDir("fs");
const files = join(dir, "files");
const MiB = 1024 * 1024;

interface Figures {
  start: number;
  reads: number;
  list: number;
  rss: number;
}

interface Peer {
  name: string;
  cmd: string[];
  read: (path: string) => [string, Record<string, unknown>];
  list: (path: string) => [string, Record<string, unknown>];
}

const peers: Peer[] = [
  {
    name: "rta",
    cmd: [join(root, "dist", "rta"), "mcp", "serve", "--root", files],
    read: (path) => ["fs_read", { path }],
    list: (path) => ["fs_list", { path }],
  },
  {
    name: "server-filesystem",
    cmd: ["node", join(root, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"), files],
    read: (path) => ["read_text_file", { path }],
    list: (path) => ["list_directory", { path }],
  },
];

async function started(cmd: string[]): Promise<Driver> {
  const d = new Driver(cmd, env);
  await d.initialize();
  await d.request("tools/list");
  return d;
}

async function coldStart(p: Peer, runs = 10): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const d = await started(p.cmd);
    if (i > 0) times.push(performance.now() - t0);
    await d.close();
  }
  return median(times);
}

async function call(d: Driver, [name, args]: [string, Record<string, unknown>]): Promise<string> {
  const r = await d.request("tools/call", { name, arguments: args });
  const result = r.result as { content: { text: string }[]; isError?: boolean } | undefined;
  if (!result || result.isError) throw new Error(`${name} failed: ${JSON.stringify(r).slice(0, 300)}`);
  return result.content[0]?.text ?? "";
}

async function readsPerSecond(p: Peer, calls = 2000): Promise<number> {
  const d = await started(p.cmd);
  const file = join(files, "4k.txt");
  for (let i = 0; i < 50; i++) await call(d, p.read(file));
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await call(d, p.read(file));
  const rate = calls / ((performance.now() - t0) / 1000);
  await d.close();
  return rate;
}

async function listing(p: Peer, runs = 10): Promise<{ ms: number; bytes: number }> {
  const d = await started(p.cmd);
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    bytes = (await call(d, p.list(join(files, "many")))).length;
    if (i > 0) times.push(performance.now() - t0);
  }
  await d.close();
  return { ms: median(times), bytes };
}

async function bigFile(p: Peer): Promise<{ rss: number; bytes: number }> {
  const d = await started(p.cmd);
  const text = await call(d, p.read(join(files, "100m.txt")));
  const { maxRSS } = await d.close();
  return { rss: maxRSS, bytes: text.length };
}

try {
  mkdirSync(join(files, "many"), { recursive: true });
  writeFileSync(join(files, "4k.txt"), `${"0123456789abcdef".repeat(255)}\n${"x".repeat(15)}`);
  for (let i = 0; i < 10_000; i++) writeFileSync(join(files, "many", `entry-${String(i).padStart(5, "0")}.txt`), "");
  writeFileSync(
    join(files, "100m.txt"),
    `${"the quick brown fox jumps over the lazy dog\n".repeat(Math.ceil((100 * MiB) / 44))}`,
  );
  const rows: string[] = [];
  const figures = new Map<string, Figures>();
  for (const p of peers) {
    const start = await coldStart(p);
    const reads = await readsPerSecond(p);
    const list = await listing(p);
    const big = await bigFile(p);
    figures.set(p.name, { start, reads, list: list.ms, rss: big.rss / MiB });
    rows.push(
      `  ${p.name.padEnd(18)} cold start ${start.toFixed(1)} ms   4 KiB reads ${reads.toFixed(0)}/s   list 10,000 ${list.ms.toFixed(1)} ms (${(list.bytes / 1024).toFixed(0)} KiB sent)   100 MB file: peak RSS ${(big.rss / MiB).toFixed(1)} MiB, ${(big.bytes / 1024).toFixed(0)} KiB sent`,
    );
  }
  const a = figures.get("rta") as Figures;
  const b = figures.get("server-filesystem") as Figures;
  console.log("fs against @modelcontextprotocol/server-filesystem (under node), same files, same run");
  for (const r of rows) console.log(r);
  console.log(
    `  ratios rta/peer: cold start ${(a.start / b.start).toFixed(2)}x, reads/s ${(a.reads / b.reads).toFixed(2)}x, list ${(a.list / b.list).toFixed(2)}x, 100 MB RSS ${(a.rss / b.rss).toFixed(2)}x`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
