/**
 * MCP over stdio, rta against the floor (a bare SDK v2 server with one echo
 * tool, compiled the same way), measured in the same run:
 * - cold start: spawn until the first tools/list is answered, median of 20;
 * - sequential calls per second: 2,000 calls of sys_info (rta) and echo (floor);
 * - peak RSS while refusing a 100 MB message, and while cutting a 50 MB table.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Driver, peakSinceExec } from "./mcpDriver.ts";
import { benchDir, compile, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const rta = join(root, "dist", "rta");
const { dir, env } = benchDir("mcp");
const MiB = 1024 * 1024;

async function coldStart(cmd: string[], runs = 20): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const d = new Driver(cmd, env);
    await d.initialize();
    await d.request("tools/list");
    const t = performance.now() - t0;
    await d.close();
    if (i > 0) times.push(t); // the first run warms the page cache
  }
  return median(times);
}

async function callsPerSecond(cmd: string[], tool: string, calls = 2000): Promise<number> {
  const d = new Driver(cmd, env);
  await d.initialize();
  for (let i = 0; i < 50; i++) await d.request("tools/call", { name: tool, arguments: {} });
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const r = await d.request("tools/call", { name: tool, arguments: {} });
    if (!r.result) throw new Error(`call failed: ${JSON.stringify(r)}`);
  }
  const s = (performance.now() - t0) / 1000;
  await d.close();
  return calls / s;
}

async function rssRefusingHugeMessage(cmd: string[]): Promise<number> {
  const d = new Driver(cmd, env);
  await d.initialize();
  const chunk = "x".repeat(MiB);
  // The server ends the session itself, so its peak is sampled while it runs, after each mebibyte.
  let peak = peakSinceExec(d.proc.pid) ?? 0;
  try {
    d.proc.stdin.write(
      '{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"jwt_decode","arguments":{"token":"',
    );
    for (let i = 0; i < 100; i++) {
      d.proc.stdin.write(chunk);
      await d.proc.stdin.flush();
      peak = Math.max(peak, peakSinceExec(d.proc.pid) ?? 0);
    }
    d.proc.stdin.write('"}}}\n');
  } catch {
    // the server ended the session and closed its end, as it should
  }
  await d.close();
  return peak;
}

async function rssIdle(cmd: string[]): Promise<number> {
  const d = new Driver(cmd, env);
  await d.initialize();
  await d.request("tools/call", { name: "bench_table", arguments: { mb: 1 } });
  return (await d.close()).maxRSS;
}

async function rssCuttingBigTable(cmd: string[]): Promise<{ rss: number; rows: number; total: number; ms: number }> {
  const d = new Driver(cmd, env);
  await d.initialize();
  const t0 = performance.now();
  const r = await d.request("tools/call", { name: "bench_table", arguments: { mb: 50 } });
  const ms = performance.now() - t0;
  const text = ((r.result as { content: { text: string }[] }).content[0]?.text ?? "{}") as string;
  const table = JSON.parse(text) as { rows: unknown[]; total: number };
  const { maxRSS } = await d.close();
  return { rss: maxRSS, rows: table.rows?.length ?? 0, total: table.total ?? 0, ms };
}

try {
  const floor = compile(join(import.meta.dir, "fixtures", "floorServer.ts"), join(dir, "floor"), true);
  const big = compile(join(import.meta.dir, "fixtures", "bigTableServer.ts"), join(dir, "rta-bigtable"));
  const rtaCmd = [rta, "mcp", "serve"];
  const floorStart = await coldStart([floor]);
  const rtaStart = await coldStart(rtaCmd);
  const floorCps = await callsPerSecond([floor], "echo");
  const rtaCps = await callsPerSecond(rtaCmd, "sys_info");
  const floorHuge = await rssRefusingHugeMessage([floor]);
  const rtaHuge = await rssRefusingHugeMessage(rtaCmd);
  const bigCmd = [big, "mcp", "serve", "--max-result", "64"];
  const idle = await rssIdle(bigCmd);
  const cut = await rssCuttingBigTable(bigCmd);
  const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
  console.log("mcp over stdio (floor: bare SDK v2 server, one echo tool, compiled the same way)");
  console.log(
    `  cold start, median of 20      floor ${floorStart.toFixed(1)} ms   rta ${rtaStart.toFixed(1)} ms   ratio ${(rtaStart / floorStart).toFixed(2)}x (target <= 1.3x)`,
  );
  console.log(
    `  sequential calls/s, 2,000     floor ${floorCps.toFixed(0)}   rta ${rtaCps.toFixed(0)} (sys_info)   ratio ${(rtaCps / floorCps).toFixed(2)} (target >= 0.5)`,
  );
  console.log(
    `  peak RSS refusing 100 MB msg  floor ${mib(floorHuge)} (SDK transport, 10 MB line cap)   rta ${mib(rtaHuge)} (target <= 80 MiB)`,
  );
  console.log(
    `  peak RSS cutting 50 MB table  rta ${mib(cut.rss)} (target <= 80 MiB; the same server after a 1 MB table: ${mib(idle)}); sent ${cut.rows} of ${cut.total} rows in ${cut.ms.toFixed(0)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
