/**
 * The record: appends per second from one process, and from four at once into
 * the same file (each a session of its own, chained and hashed as a server
 * writes them). Target: at least 20,000 a second from one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyFile } from "../src/record/verify.ts";

const dir = mkdtempSync(join(tmpdir(), "rta-bench-record-"));
const writer = join(import.meta.dir, "fixtures", "recordWriter.ts");
const PER_PROCESS = 50_000;

async function run(processes: number): Promise<number> {
  const file = join(dir, `record-${processes}.jsonl`);
  const t0 = performance.now();
  const procs = Array.from({ length: processes }, (_, i) =>
    Bun.spawn([process.execPath, writer, file, `s${i}`, String(PER_PROCESS)], { stdout: "pipe" }),
  );
  // Each writer reports its own appends per second; the wall clock gives the total.
  const own = await Promise.all(procs.map(async (p) => Number(await new Response(p.stdout).text())));
  const wall = (performance.now() - t0) / 1000;
  const verdict = verifyFile(file);
  if (verdict.problems.length > 0 || verdict.lines !== processes * (PER_PROCESS + 2))
    throw new Error(`the record did not verify: ${JSON.stringify(verdict).slice(0, 300)}`);
  console.log(
    `  ${processes} process${processes > 1 ? "es" : ""}: ${Math.round(own.reduce((a, b) => a + b, 0)).toLocaleString("en")} appends/s while writing (${Math.round((processes * PER_PROCESS) / wall).toLocaleString("en")}/s by the wall clock, start-up included); verified`,
  );
  return own[0] ?? 0;
}

try {
  console.log(`record appends (${PER_PROCESS.toLocaleString("en")} lines a process; target >= 20,000/s from one)`);
  await run(1);
  await run(4);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
