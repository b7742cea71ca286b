/**
 * fs.grep throughput over MCP stdio: MB/s over a 50 MB tree of text made here
 * (500 files of about 100 KB in 10 directories, log and code lines), for a few
 * kinds of pattern that every engine takes. Each figure is the median of 5
 * searches after one warm-up. Give more binaries to compare them in the same
 * run, e.g. one built before the change of engine:
 *
 *   bun bench/grep.ts                     # dist/rta
 *   bun bench/grep.ts OLD_BINARY dist/rta # before and after
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { median } from "./measure.ts";

const MB = 1_000_000;
const TREE_BYTES = 50 * MB;
const DIRS = 10;
const FILES_PER_DIR = 50;
const RUNS = 5;

/** Patterns every engine takes (no backreferences, no lookaround): [label, pattern, ignore_case]. */
const PATTERNS: [string, string, boolean][] = [
  ["literal, rare", "connection refused", false],
  ["literal, no match", "no such text anywhere", false],
  ["alternation", "FATAL|panic:", false],
  ["class and repeat", "[A-Z]{5} disk [a-z]+", false],
  ["case-insensitive", "fatal", true],
  ["anchored", "^\\s*return null;", false],
];

/** Lines that look like logs and code, chosen by a fixed generator so every run searches the same tree. */
function makeTree(dir: string): number {
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const words = ["alpha", "beta", "gamma", "delta", "cache", "worker", "queue", "socket", "user", "request"];
  const lines = [
    () =>
      `2026-11-30T12:${String(next() % 60).padStart(2, "0")}:00Z INFO ${words[next() % 10]} handled in ${next() % 1000}.${next() % 100}.${next() % 10} ms`,
    () => `2026-11-30T12:00:00Z WARN ${words[next() % 10]} retry ${next() % 5} after Timeout on ${words[next() % 10]}`,
    () =>
      `  const ${words[next() % 10]}${next() % 100} = await fetch${words[next() % 10]}(id, { retries: ${next() % 9} });`,
    () => `  if (!${words[next() % 10]}) return null;`,
    () =>
      `// ${words[next() % 10]} ${words[next() % 10]} ${words[next() % 10]}: keep in step with the ${words[next() % 10]}`,
  ];
  const perFile = Math.floor(TREE_BYTES / (DIRS * FILES_PER_DIR));
  let total = 0;
  for (let d = 0; d < DIRS; d++) {
    mkdirSync(join(dir, `d${d}`));
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const parts: string[] = [];
      let size = 0;
      while (size < perFile) {
        const n = next() % 1000;
        // a rare line now and then, so the rare patterns find something
        const line =
          n === 0 ? "ERROR connection refused by upstream" : n === 1 ? "FATAL disk full" : (lines[n % 5]?.() ?? "");
        parts.push(line);
        size += line.length + 1;
      }
      const text = `${parts.join("\n")}\n`;
      writeFileSync(join(dir, `d${d}`, `f${f}.log`), text);
      total += Buffer.byteLength(text);
    }
  }
  return total;
}

async function searchMs(d: Driver, root: string, pattern: string, ignoreCase: boolean): Promise<number> {
  const args = { pattern, path: root, ignore_case: ignoreCase, max_matches: 10_000 };
  const once = async () => {
    const t0 = performance.now();
    const r = await d.request("tools/call", { name: "fs_grep", arguments: args });
    const ms = performance.now() - t0;
    const result = r.result as { isError?: boolean; content: { text: string }[] } | undefined;
    if (!result || result.isError) throw new Error(`fs_grep failed: ${JSON.stringify(r).slice(0, 300)}`);
    return ms;
  };
  await once();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  return median(times);
}

const binaries = process.argv.slice(2).map((b) => resolve(b));
if (binaries.length === 0) binaries.push(join(import.meta.dir, "..", "dist", "rta"));
const dir = mkdtempSync(join(tmpdir(), "rta-bench-grep-"));
const tree = join(dir, "tree");
try {
  mkdirSync(tree);
  const bytes = makeTree(tree);
  const env = {
    PATH: process.env.PATH ?? "",
    RTA_DATA_DIR: join(dir, "data"),
    RTA_CONFIG_DIR: join(dir, "config"),
    HOME: dir,
  };
  console.log(
    `fs.grep over a ${(bytes / MB).toFixed(1)} MB tree (${DIRS * FILES_PER_DIR} files), MB/s, median of ${RUNS}`,
  );
  console.log(`  ${"pattern".padEnd(20)}${binaries.map((_, i) => `binary ${i + 1}`.padStart(12)).join("")}`);
  const drivers: Driver[] = [];
  for (const b of binaries) {
    const d = new Driver([b, "mcp", "serve", "--root", tree], env);
    await d.initialize();
    drivers.push(d);
  }
  for (const [label, pattern, ignoreCase] of PATTERNS) {
    const cells: string[] = [];
    for (const d of drivers) {
      const ms = await searchMs(d, tree, pattern, ignoreCase);
      cells.push((bytes / MB / (ms / 1000)).toFixed(1).padStart(12));
    }
    console.log(`  ${label.padEnd(20)}${cells.join("")}`);
  }
  for (const d of drivers) await d.close();
  binaries.forEach((b, i) => {
    console.log(`  binary ${i + 1}: ${b}`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
