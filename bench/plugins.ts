/**
 * What a call costs through a plugin against the same capability built in, in
 * one run: `bun bench/plugins.ts BUILTIN_RTA [PLUGIN_RTA]`. BUILTIN_RTA is a
 * build from before note moved out (main's dist/rta then); PLUGIN_RTA
 * (default dist/rta) serves note from dist/plugins/rta-plugin-note, installed
 * into its data dir with `rta pkg install`. Both hold the same 20 notes and
 * serve note_list over stdio; rounds are interleaved (A B A B ...) so the
 * machine's noise falls on both alike, and the median round is printed, with
 * the plugin path's extra cost per call. Target: at most 0.3 ms more a call.
 *
 * The shell example (demo_echo, test/fixtures/plugins/rta-plugin-demo) is
 * measured beside them for what a plugin that forks per message costs; it is
 * no target.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { callRate } from "./mcpDriver.ts";
import { benchDir, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const given = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (given.length === 0) {
  console.error("usage: bun bench/plugins.ts BUILTIN_RTA [PLUGIN_RTA]   (BUILTIN_RTA: a build with note built in)");
  process.exit(2);
}
const builtin = resolve(given[0] as string);
const plugged = resolve(given[1] ?? join(root, "dist", "rta"));
const NOTE_PLUGIN = join(root, "dist", "plugins", "rta-plugin-note");
const DEMO_PLUGIN = join(root, "test", "fixtures", "plugins", "rta-plugin-demo");
const ROUNDS = 5;
const CALLS = 1000;
const NOTES = 20;

/** A data dir for `bin`, with NOTES notes, and the plugins installed when given. */
function dataFor(bin: string, name: string, plugins: string[]): Record<string, string> {
  const { env } = benchDir(`plugins-${name}`);
  mkdirSync(env.RTA_DATA_DIR as string, { recursive: true });
  const run = (args: string[]) => {
    const r = spawnSync(bin, args, { env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${bin} ${args.join(" ")}: ${r.stderr}`);
  };
  for (const p of plugins) run(["pkg", "install", p, "--yes"]);
  for (let i = 0; i < NOTES; i++) run(["note", "add", `note ${i}`, "--body", `the body of note ${i}`]);
  return env;
}

/** Calls per second over CALLS sequential calls of one tool, after a warm-up. */
function rate(bin: string, env: Record<string, string>, tool: string, args: object): Promise<number> {
  return callRate([bin, "mcp", "serve"], env, tool, args, CALLS);
}

const envs: Record<string, string>[] = [];
try {
  const oldEnv = dataFor(builtin, "builtin", []);
  const newEnv = dataFor(plugged, "plugin", [NOTE_PLUGIN, DEMO_PLUGIN]);
  envs.push(oldEnv, newEnv);
  const runs: [string, string, Record<string, string>, string, object][] = [
    ["note_list, built in", builtin, oldEnv, "note_list", {}],
    ["note_list, plugin", plugged, newEnv, "note_list", {}],
    ["demo_echo, shell plugin", plugged, newEnv, "demo_echo", { text: "hello" }],
  ];
  const rates = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, bin, env, tool, args] of runs) {
      rates.set(name, [...(rates.get(name) ?? []), await rate(bin, env, tool, args)]);
    }
  }
  console.log(`calls over stdio, median of ${ROUNDS} interleaved rounds of ${CALLS} calls (${NOTES} notes)`);
  console.log(`  built in: ${builtin}`);
  console.log(`  plugin:   ${plugged} with ${NOTE_PLUGIN}`);
  const us = (name: string) => 1e6 / median(rates.get(name) ?? []);
  for (const [name] of runs) {
    const r = median(rates.get(name) ?? []);
    const all = (rates.get(name) ?? []).map((x) => x.toFixed(0)).join(" ");
    console.log(
      `    ${name.padEnd(24)} ${r.toFixed(0).padStart(6)}/s  ${us(name).toFixed(0).padStart(5)} us/call  (${all})`,
    );
  }
  const extra = us("note_list, plugin") - us("note_list, built in");
  console.log(`  the plugin path costs ${extra.toFixed(0)} us more a call (target: at most 300 us)`);
} finally {
  for (const env of envs) rmSync(join(env.HOME as string), { recursive: true, force: true });
}
