/**
 * Where a call's time goes, stage by stage, server-side: `bun bench/stages.ts
 * [RTA_BINARY...]` (default dist/rta). Each binary serves fs_read of a 4 KiB
 * file, sys_info and jwt_decode over stdio with RTA_PROFILE=stages, and says
 * on exit the microseconds each stage took; the table is microseconds per
 * call, the median of RUNS runs. With strace on the PATH, each tool is run
 * again under `strace -c -f` at two call counts, and the difference gives the
 * syscalls one call costs (start-up cancels out). `--floor` profiles two
 * servers with one echo tool first, given each workload's arguments: the
 * floor, and the floor over rta's own stdio transport (see floorBinaries).
 *
 * What was one row, "SDK parse and dispatch", is cut where rta's own code
 * sits in it: stdio framing (the byte scan, its value count, the decode),
 * the SDK's message parse, the in-flight accounting, the SDK's dispatch, and
 * "calls in flight" (rta's tracking of the call and the SDK's check of its
 * params, up to rta's handler).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./mcpDriver.ts";
import { benchDir, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const given = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const binaries = given.length > 0 ? given.map((b) => resolve(b)) : [join(root, "dist", "rta")];
/** `--floor`: the floor (a bare SDK v2 stdio server, marked the same way) is profiled first, its echo tool given each workload's arguments. */
const withFloor = process.argv.includes("--floor");
const RUNS = 3;
const CALLS = 2000;
const { dir, env } = benchDir("stages");
const files = join(dir, "files");
const TOKEN =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

const workloads = [
  { name: "fs_read", args: () => ({ path: join(files, "4k.txt") }) },
  { name: "sys_info", args: () => ({}) },
  { name: "jwt_decode", args: () => ({ token: TOKEN }) },
];

/** The stages as the table shows them, in the order a call passes them. */
const ROWS = [
  "SDK parse and dispatch",
  "stdio framing",
  "SDK message parse",
  "in-flight accounting",
  "SDK dispatch",
  "calls in flight",
  "resolve, shape, declaration, fill, grant, profile",
  "config",
  "lock check",
  "path gate, open and close",
  "record: entry",
  "record: gate.db lock and checkpoint read",
  "record: file checks",
  "record: line and mac",
  "record: write",
  "record: checkpoint write and commit",
  "record: run line",
  "the capability's run",
  "bound",
  "record: outcome line",
  "redaction",
  "result JSON, SDK result checks",
  "result JSON",
  "SDK result checks",
  "answer frame JSON",
  "answer written",
];

interface Profile {
  calls: number;
  us: Record<string, number>;
  cpu_us: number;
}

/** Serves `calls` calls of one tool, and what the server said of them on exit. */
async function profiled(bin: string, tool: string, args: Record<string, unknown>, calls: number): Promise<Profile> {
  const floor = isFloor(bin);
  const d = new Driver(floor ? [bin] : [bin, "mcp", "serve", "--root", files], { ...env, RTA_PROFILE: "stages" });
  if (floor) tool = "echo";
  const stderr = new Response(d.proc.stderr).text();
  await d.initialize();
  for (let i = 0; i < calls; i++) {
    const r = await d.request("tools/call", { name: tool, arguments: args });
    const result = r.result as { isError?: boolean } | undefined;
    if (!result || result.isError) throw new Error(`${tool} failed: ${JSON.stringify(r).slice(0, 300)}`);
  }
  await d.close();
  const line = (await stderr).split("\n").find((l) => l.startsWith("rta profile "));
  if (!line) throw new Error(`${bin} said no profile: is it built with RTA_PROFILE?`);
  return JSON.parse(line.slice("rta profile ".length)) as Profile;
}

/** The syscalls of a whole server that answered `calls` calls, counted by strace. */
async function syscalls(bin: string, tool: string, args: Record<string, unknown>, calls: number): Promise<number> {
  const out = join(dir, `strace-${calls}`);
  const floor = isFloor(bin);
  const serve = floor ? [bin] : [bin, "mcp", "serve", "--root", files];
  const d = new Driver(["strace", "-c", "-f", "-o", out, ...serve], env);
  await d.initialize();
  if (floor) tool = "echo";
  for (let i = 0; i < calls; i++) await d.request("tools/call", { name: tool, arguments: args });
  await d.close();
  const total = readFileSync(out, "utf8")
    .split("\n")
    .find((l) => /\btotal$/.test(l.trim()));
  return Number(total?.trim().split(/\s+/)[3] ?? Number.NaN);
}

/**
 * With `--floor`, two servers with one echo tool come first: the floor (a bare
 * SDK v2 stdio server, marked the same way), and the same served over rta's own
 * stdio transport with its handlers wrapped as rta wraps them. The second less
 * the first is what rta's transport costs, with none of the gate in it.
 */
const floorBinaries = [
  { fixture: "floorStages.ts", out: join(dir, "floor") },
  { fixture: "floorRtaStdio.ts", out: join(dir, "floor-over-rta-stdio") },
];
const isFloor = (bin: string) => floorBinaries.some((f) => f.out === bin);

function compileFloors(): void {
  for (const { fixture, out } of floorBinaries) {
    const entry = join(import.meta.dir, "fixtures", fixture);
    const args = ["build", entry, "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", out];
    if (spawnSync(process.execPath, args, { stdio: "ignore" }).status !== 0)
      throw new Error(`could not compile ${fixture}`);
  }
}

const hasStrace = spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;

try {
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, "4k.txt"), `${"0123456789abcdef".repeat(255)}\n${"x".repeat(15)}`);
  if (withFloor) compileFloors();
  for (const bin of withFloor ? [...floorBinaries.map((f) => f.out), ...binaries] : binaries) {
    const perCall = new Map<string, Map<string, number[]>>();
    const cpu = new Map<string, number[]>();
    for (let run = 0; run < RUNS; run++) {
      for (const w of workloads) {
        const p = await profiled(bin, w.name, w.args(), CALLS);
        const rows = perCall.get(w.name) ?? new Map<string, number[]>();
        for (const [stage, us] of Object.entries(p.us)) rows.set(stage, [...(rows.get(stage) ?? []), us / p.calls]);
        perCall.set(w.name, rows);
        cpu.set(w.name, [...(cpu.get(w.name) ?? []), p.cpu_us / p.calls]);
      }
    }
    console.log(`\nmicroseconds per call, server-side, median of ${RUNS} runs of ${CALLS} calls: ${bin}`);
    console.log(`| stage | ${workloads.map((w) => w.name).join(" | ")} |`);
    console.log(`| --- | ${workloads.map(() => "---").join(" | ")} |`);
    const cell = (w: string, stage: string) => {
      const v = perCall.get(w)?.get(stage);
      return v ? median(v).toFixed(1) : "";
    };
    const known = new Set([...ROWS, "total"]);
    const extra = [...new Set(workloads.flatMap((w) => [...(perCall.get(w.name)?.keys() ?? [])]))].filter(
      (s) => !known.has(s),
    );
    for (const stage of [...ROWS, ...extra])
      if (workloads.some((w) => cell(w.name, stage) !== ""))
        console.log(`| ${stage} | ${workloads.map((w) => cell(w.name, stage)).join(" | ")} |`);
    console.log(
      `| **data in → answer written** | ${workloads.map((w) => `**${cell(w.name, "total")}**`).join(" | ")} |`,
    );
    console.log(
      `| server CPU, all threads, whole run / calls | ${workloads.map((w) => median(cpu.get(w.name) ?? []).toFixed(0)).join(" | ")} |`,
    );
    if (hasStrace) {
      const counts = [];
      for (const w of workloads) {
        const few = await syscalls(bin, w.name, w.args(), 200);
        const many = await syscalls(bin, w.name, w.args(), 1200);
        counts.push(`${w.name} ${((many - few) / 1000).toFixed(1)}`);
      }
      console.log(`syscalls per call (strace -c -f, 1,200 calls less 200): ${counts.join(", ")}`);
    } else console.log("syscalls per call: strace is not on the PATH");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
