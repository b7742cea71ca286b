/**
 * What rta adds to a call of an upstream's tool: `bun bench/upstreams.ts
 * [RTA_BINARY]` (default dist/rta). The upstream is the floor (a bare SDK v2
 * stdio server with one echo tool, compiled as rta is). One driver calls it
 * directly; another calls it through `rta mcp serve` with it in config as
 * `[upstreams.floor]` (the tool `floor_echo`, a free read by `trust = true`, since the floor's echo has no annotations). Calls alternate
 * one by one (direct, through rta, direct, ...) so the machine's noise falls
 * on both alike; each call's time is taken, and the medians of ROUNDS rounds
 * are printed, with the added latency: through rta minus direct.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, compile, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const binary = resolve(process.argv[2] ?? join(root, "dist", "rta"));
const ROUNDS = 5;
const CALLS = 1000;
const WARM = 100;
const { dir, env } = benchDir("upstreams");

async function call(d: Driver, tool: string): Promise<number> {
  const t0 = performance.now();
  const answer = await d.request("tools/call", { name: tool, arguments: { text: "hi" } });
  const ms = performance.now() - t0;
  const result = answer.result as { isError?: boolean } | undefined;
  if (!result || result.isError) throw new Error(`${tool} failed: ${JSON.stringify(answer).slice(0, 300)}`);
  return ms;
}

try {
  const floor = compile(join(import.meta.dir, "fixtures", "floorServer.ts"), join(dir, "floor"));
  mkdirSync(env.RTA_CONFIG_DIR as string, { recursive: true });
  writeFileSync(
    join(env.RTA_CONFIG_DIR as string, "config.toml"),
    `[upstreams.floor]\ncommand = [${JSON.stringify(floor)}]\n[upstreams.floor.tools.echo]\nsafety = "read"\ntrust = true\n`,
  );
  // a person approves the floor's tools first: an upstream not approved is withheld
  const approved = spawnSync(binary, ["upstream", "approve", "floor", "--yes"], { env, encoding: "utf8" });
  if (approved.status !== 0) throw new Error(`approving the floor failed: ${approved.stderr}`);
  const direct: number[] = [];
  const through: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = new Driver([floor], env);
    const b = new Driver([binary, "mcp", "serve", "--root", dir], env);
    await a.initialize();
    await b.initialize();
    for (let i = 0; i < WARM; i++) {
      await call(a, "echo");
      await call(b, "floor_echo");
    }
    const da: number[] = [];
    const db: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      da.push(await call(a, "echo"));
      db.push(await call(b, "floor_echo"));
    }
    await a.close();
    await b.close();
    direct.push(median(da));
    through.push(median(db));
  }
  const d = median(direct);
  const t = median(through);
  console.log(
    `one upstream call over stdio, ms, median of ${ROUNDS} rounds (each the median of ${CALLS} alternated calls)`,
  );
  console.log(
    `  direct to the upstream         ${d.toFixed(3)}   rounds: ${direct.map((x) => x.toFixed(3)).join(" ")}`,
  );
  console.log(`  through rta (${binary})`);
  console.log(
    `                                 ${t.toFixed(3)}   rounds: ${through.map((x) => x.toFixed(3)).join(" ")}`,
  );
  console.log(`  added by rta                   ${(t - d).toFixed(3)}   (target: at most 0.500)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
