/**
 * note_list calls per second: the note plugin (installed in the data dir)
 * against a build where note was built in, in one run:
 * `bun bench/noteCalls.ts OLD_RTA [NEW_RTA]` (NEW defaults to dist/rta, its
 * plugin to dist/plugins/rta-plugin-note). Rounds are interleaved (old, new,
 * old, new ...), ten notes are listed each call, and the median round is
 * printed with the difference per call. Target: the plugin costs at most
 * 0.3 ms more per call.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const [oldBin, newBin = join(root, "dist", "rta")] = process.argv.slice(2).map((b) => resolve(b));
if (oldBin === undefined) throw new Error("usage: bun bench/noteCalls.ts OLD_RTA [NEW_RTA]");
const ROUNDS = 5;
const CALLS = 1000;

/** A data dir holding ten notes, and, for the new build, the note plugin installed as a person installs it. */
function dataDir(name: string, install: boolean): Record<string, string> {
  const { dir, env } = benchDir(name);
  const data = env.RTA_DATA_DIR as string;
  mkdirSync(join(data, "notes"), { recursive: true, mode: 0o700 });
  for (let i = 0; i < 10; i++) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const note = { id: `n-${i}`, title: `note ${i}`, body: "x".repeat(100), created: at, updated: at };
    writeFileSync(join(data, "notes", `n-${i}.json`), JSON.stringify(note));
  }
  if (install) {
    const r = Bun.spawnSync([newBin, "pkg", "install", join(root, "dist", "plugins", "rta-plugin-note"), "--yes"], {
      env: { ...process.env, ...env },
    });
    if (r.exitCode !== 0) throw new Error(`install failed: ${r.stderr.toString()}`);
  }
  void dir;
  return env;
}

async function rate(bin: string, env: Record<string, string>): Promise<number> {
  const d = new Driver([bin, "mcp", "serve"], env);
  await d.initialize();
  const once = async () => {
    const r = await d.request("tools/call", { name: "note_list", arguments: {} });
    const result = r.result as { isError?: boolean } | undefined;
    if (!result || result.isError) throw new Error(`note_list failed: ${JSON.stringify(r).slice(0, 300)}`);
  };
  for (let i = 0; i < 100; i++) await once();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await once();
  const s = (performance.now() - t0) / 1000;
  await d.close();
  return CALLS / s;
}

const oldEnv = dataDir("note-old", false);
const newEnv = dataDir("note-new", true);
const olds: number[] = [];
const news: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  olds.push(await rate(oldBin, oldEnv));
  news.push(await rate(newBin, newEnv));
}
const o = median(olds);
const n = median(news);
console.log(`note_list over stdio, calls/s, median of ${ROUNDS} interleaved rounds of ${CALLS} calls`);
console.log(`  built in  ${o.toFixed(0).padStart(6)}/s  ${(1e6 / o).toFixed(0).padStart(4)} us/call  ${oldBin}`);
console.log(`  plugin    ${n.toFixed(0).padStart(6)}/s  ${(1e6 / n).toFixed(0).padStart(4)} us/call  ${newBin}`);
console.log(`  the plugin costs ${((1e3 / n - 1e3 / o) * 1000).toFixed(0)} us more per call (target <= 300 us)`);
