/**
 * What rta adds to a call of an upstream's tool: `bun bench/upstreams.ts
 * [RTA_BINARY...]` (default dist/rta). The upstream is the floor (a bare SDK v2
 * stdio server with one echo tool, compiled as rta is). One driver calls it
 * directly; another calls it through `rta mcp serve` with it in config as
 * `[upstreams.floor]` (the tool `floor_echo`, a free read by `trust = true`, since the floor's echo has no annotations). Calls alternate
 * one by one (direct, through rta, direct, ...) so the machine's noise falls
 * on both alike; each call's time is taken, and the medians of ROUNDS rounds
 * are printed, with the added latency: through rta minus direct.
 *
 * Given several binaries (`bun bench/upstreams.ts OLD NEW`), each serves
 * from a data dir of its own, and the calls go direct, OLD, NEW, direct, ...
 * in one run; the added latency is each round's difference, their median.
 *
 * `bun bench/upstreams.ts --stages OLD NEW ...` prints instead where the
 * time of a call through rta goes, stage by stage, server-side (each binary
 * served with RTA_PROFILE=stages, the median of 3 runs of 2,000 calls, as
 * bench/stages.ts does), and with strace on the PATH, the syscalls a call
 * costs rta and its upstream together, and the upstream alone.
 *
 * `bun bench/upstreams.ts --start OLD NEW ...` prints instead how long each
 * binary's server takes to answer its first tools/list with a 10,000-tool
 * upstream approved, the binaries taken in turn, 3 rounds.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, compile, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
if (process.argv[2] === "--start") {
  await startTimes(process.argv.slice(3).map((b) => resolve(b)));
  process.exit(0);
}
if (process.argv[2] === "--stages") {
  await stages(process.argv.slice(3).map((b) => resolve(b)));
  process.exit(0);
}
const given = process.argv.slice(2).map((b) => resolve(b));
const binaries = given.length > 0 ? given : [join(root, "dist", "rta")];
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
  // each binary its own data dir (its record, its approval), one config naming the floor
  mkdirSync(env.RTA_CONFIG_DIR as string, { recursive: true });
  writeFileSync(
    join(env.RTA_CONFIG_DIR as string, "config.toml"),
    `[upstreams.floor]\ncommand = [${JSON.stringify(floor)}]\n[upstreams.floor.tools.echo]\nsafety = "read"\ntrust = true\n`,
  );
  const envs = binaries.map((binary, i) => {
    const e = { ...env, RTA_DATA_DIR: join(dir, `data${i}`) } as Record<string, string>;
    // a person approves the floor's tools first: an upstream not approved is withheld
    const approved = spawnSync(binary, ["upstream", "approve", "floor", "--yes"], { env: e, encoding: "utf8" });
    if (approved.status !== 0) throw new Error(`approving the floor with ${binary} failed: ${approved.stderr}`);
    return e;
  });
  const direct: number[] = [];
  const through: number[][] = binaries.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const a = new Driver([floor], env);
    const bs = binaries.map((binary, i) => new Driver([binary, "mcp", "serve", "--root", dir], envs[i] ?? env));
    await a.initialize();
    for (const b of bs) await b.initialize();
    for (let i = 0; i < WARM; i++) {
      await call(a, "echo");
      for (const b of bs) await call(b, "floor_echo");
    }
    const da: number[] = [];
    const dbs: number[][] = bs.map(() => []);
    for (let i = 0; i < CALLS; i++) {
      da.push(await call(a, "echo"));
      for (const [j, b] of bs.entries()) dbs[j]?.push(await call(b, "floor_echo"));
    }
    await a.close();
    for (const b of bs) await b.close();
    direct.push(median(da));
    for (const [j, db] of dbs.entries()) through[j]?.push(median(db));
  }
  const d = median(direct);
  const rounds = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(" ");
  console.log(
    `one upstream call over stdio, ms, median of ${ROUNDS} rounds (each the median of ${CALLS} alternated calls)`,
  );
  console.log(`  direct to the upstream         ${d.toFixed(3)}   rounds: ${rounds(direct)}`);
  for (const [j, binary] of binaries.entries()) {
    const t = median(through[j] ?? []);
    // each round's own difference, so a round the machine slowed for both cancels out
    const added = (through[j] ?? []).map((x, r) => x - (direct[r] ?? 0));
    console.log(`  through rta (${binary})`);
    console.log(`                                 ${t.toFixed(3)}   rounds: ${rounds(through[j] ?? [])}`);
    console.log(
      `  added by rta                   ${median(added).toFixed(3)}   rounds: ${rounds(added)}   (target: at most 0.500)`,
    );
  }
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

/** The floor in config as `[upstreams.floor]`, approved, for each binary a data dir of its own. */
function floorSetup(dir: string, binaries: string[]): { floor: string; envs: Record<string, string>[] } {
  const floor = compile(join(import.meta.dir, "fixtures", "floorServer.ts"), join(dir, "floor"));
  const config = join(dir, "config");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.toml"),
    `[upstreams.floor]\ncommand = [${JSON.stringify(floor)}]\n[upstreams.floor.tools.echo]\nsafety = "read"\ntrust = true\n`,
  );
  const envs = binaries.map((binary, i) => {
    const e = { PATH: process.env.PATH ?? "", HOME: dir, RTA_DATA_DIR: join(dir, `data${i}`), RTA_CONFIG_DIR: config };
    const approved = spawnSync(binary, ["upstream", "approve", "floor", "--yes"], { env: e, encoding: "utf8" });
    if (approved.status !== 0) throw new Error(`approving the floor with ${binary} failed: ${approved.stderr}`);
    return e;
  });
  return { floor, envs };
}

/** Each binary's stages of an upstream call, microseconds per call, and the syscalls one call costs. */
async function stages(binaries: string[]): Promise<void> {
  const { dir } = benchDir("upstreams-stages");
  const RUNS = 3;
  const N = 2000;
  try {
    const { floor, envs } = floorSetup(dir, binaries);
    const perCall = binaries.map(() => new Map<string, number[]>());
    for (let run = 0; run < RUNS; run++)
      for (const [i, binary] of binaries.entries()) {
        const env = { ...(envs[i] as Record<string, string>), RTA_PROFILE: "stages" };
        const d = new Driver([binary, "mcp", "serve", "--root", dir], env);
        await d.initialize();
        for (let c = 0; c < N; c++) await call(d, "floor_echo");
        await d.close();
        const line = (await new Response(d.proc.stderr).text()).split("\n").find((l) => l.startsWith("rta profile "));
        if (!line) throw new Error(`${binary} printed no profile`);
        const p = JSON.parse(line.slice("rta profile ".length)) as { calls: number; us: Record<string, number> };
        const rows = perCall[i] as Map<string, number[]>;
        for (const [stage, us] of Object.entries(p.us)) rows.set(stage, [...(rows.get(stage) ?? []), us / p.calls]);
      }
    const names = [...new Set(perCall.flatMap((rows) => [...rows.keys()]))].filter((s) => s !== "total");
    console.log(`microseconds per upstream call, server-side, median of ${RUNS} runs of ${N} calls`);
    console.log(`| stage | ${binaries.join(" | ")} |`);
    console.log(`| --- | ${binaries.map(() => "---").join(" | ")} |`);
    const cell = (i: number, stage: string) => {
      const v = perCall[i]?.get(stage);
      return v ? median(v).toFixed(1) : "";
    };
    for (const stage of [...names, "total"])
      console.log(`| ${stage} | ${binaries.map((_, i) => cell(i, stage)).join(" | ")} |`);
    if (spawnSync("strace", ["-V"], { stdio: "ignore" }).status !== 0) {
      console.log("syscalls per call: strace is not on the PATH");
      return;
    }
    const counted = async (cmd: string[], env: Record<string, string>, tool: string, calls: number) => {
      const out = join(dir, "strace.txt");
      const d = new Driver(["strace", "-c", "-f", "-o", out, ...cmd], env);
      await d.initialize();
      for (let c = 0; c < calls; c++) await call(d, tool);
      await d.close();
      const total = readFileSync(out, "utf8")
        .split("\n")
        .find((l) => /\btotal$/.test(l.trim()));
      return Number(total?.trim().split(/\s+/)[3] ?? Number.NaN);
    };
    const perOne = async (cmd: string[], env: Record<string, string>, tool: string) =>
      ((await counted(cmd, env, tool, 1200)) - (await counted(cmd, env, tool, 200))) / 1000;
    console.log("syscalls per call (strace -c -f, 1,200 calls less 200)");
    console.log(
      `  the upstream alone   ${(await perOne([floor], envs[0] as Record<string, string>, "echo")).toFixed(1)}`,
    );
    for (const [i, binary] of binaries.entries()) {
      const cmd = [binary, "mcp", "serve", "--root", dir];
      const n = await perOne(cmd, envs[i] as Record<string, string>, "floor_echo");
      console.log(`  rta and its upstream ${n.toFixed(1)}   ${binary}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
