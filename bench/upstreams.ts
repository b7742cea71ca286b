/**
 * What rta adds to a call of an upstream's tool: `bun bench/upstreams.ts
 * [RTA_BINARY]` (default dist/rta). The upstream is the floor (a bare SDK v2
 * stdio server with one echo tool, compiled as rta is). One driver calls it
 * directly; another calls it through `rta mcp serve` with it in config as
 * `[upstreams.floor]` (the tool `floor_echo`, a free read by `trust = true`, since the floor's echo has no annotations). Calls alternate
 * one by one (direct, through rta, direct, ...) so the machine's noise falls
 * on both alike; each call's time is taken, and the medians of ROUNDS rounds
 * are printed, with the added latency: through rta minus direct.
 *
 * `bun bench/upstreams.ts --start OLD NEW ...` prints instead how long each
 * binary's server takes to answer its first tools/list with a 10,000-tool
 * upstream approved, the binaries taken in turn, 3 rounds.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, compile, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
if (process.argv[2] === "--start") {
  await startTimes(process.argv.slice(3).map((b) => resolve(b)));
  process.exit(0);
}
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

/** Each binary's time from its server's start to its first tools/list answer, a 10,000-tool upstream approved. */
async function startTimes(binaries: string[]): Promise<void> {
  const { dir } = benchDir("upstreams-start");
  try {
    const floor = compile(join(import.meta.dir, "fixtures", "floorServer.ts"), join(dir, "floor"));
    const envs = binaries.map((binary, i) => {
      const e = { PATH: process.env.PATH ?? "", HOME: dir, RTA_DATA_DIR: join(dir, `data${i}`) };
      const config = join(dir, `config${i}`);
      mkdirSync(config, { recursive: true });
      writeFileSync(
        join(config, "config.toml"),
        `[upstreams.big]\ncommand = [${JSON.stringify(floor)}]\nenv = { FLOOR_TOOLS = "9999" }\n`,
      );
      const env = { ...e, RTA_CONFIG_DIR: config };
      const approved = spawnSync(binary, ["upstream", "approve", "big", "--yes"], { env, encoding: "utf8" });
      if (approved.status !== 0) throw new Error(`approving with ${binary} failed: ${approved.stderr}`);
      return env;
    });
    const times: number[][] = binaries.map(() => []);
    for (let round = 0; round < 3; round++)
      for (const [i, binary] of binaries.entries()) {
        const t0 = performance.now();
        const d = new Driver([binary, "mcp", "serve", "--root", dir], envs[i] as Record<string, string>);
        await d.initialize();
        const listed = await d.request("tools/list", {});
        const ms = performance.now() - t0;
        // every tool offered, page by page (not timed)
        let offered = 0;
        for (let page = listed; ; ) {
          const r = page.result as { tools: { name: string }[]; nextCursor?: string };
          offered += r.tools.filter((t) => t.name.startsWith("big_")).length;
          if (r.nextCursor === undefined) break;
          page = await d.request("tools/list", { cursor: r.nextCursor });
        }
        await d.close();
        if (offered !== 10_000) throw new Error(`${binary} offered ${offered} of the upstream's 10,000 tools`);
        times[i]?.push(ms);
      }
    console.log(`a server's start to its first tools/list, a 10,000-tool upstream approved, ms (3 rounds)`);
    for (const [i, binary] of binaries.entries())
      console.log(
        `  ${binary}\n    median ${median(times[i] ?? []).toFixed(0)}   rounds: ${(times[i] ?? []).map((x) => x.toFixed(0)).join(" ")}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
