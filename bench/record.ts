/**
 * The record: appends per second from one process, and from four at once into
 * the same file (each a session of its own, each line keyed and chained to the
 * one before it in the file, the checkpoint kept in record.checkpoint under
 * gate.db's write lock, as a server writes them). Target: at least 20,000 a
 * second from one.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GateStore } from "../src/gate/gateStore.ts";
import { readRecordKey } from "../src/record/key.ts";
import { verifyFile } from "../src/record/verify.ts";

const dir = mkdtempSync(join(tmpdir(), "rta-bench-record-"));
const writer = join(import.meta.dir, "fixtures", "recordWriter.ts");
const PER_PROCESS = 50_000;

async function run(processes: number): Promise<number> {
  // Each run a data dir of its own: the key and the checkpoint are the data dir's.
  const data = join(dir, `data-${processes}`);
  mkdirSync(data);
  const file = join(data, "agent-log.jsonl");
  const t0 = performance.now();
  const procs = Array.from({ length: processes }, (_, i) =>
    Bun.spawn([process.execPath, writer, file, `s${i}`, String(PER_PROCESS)], { stdout: "pipe" }),
  );
  // Each writer reports its own appends per second; the wall clock gives the total.
  const own = await Promise.all(procs.map(async (p) => Number(await new Response(p.stdout).text())));
  const wall = (performance.now() - t0) / 1000;
  const store = new GateStore(join(data, "gate.db"));
  const verdict = verifyFile(file, { key: readRecordKey(data), checkpoint: store.recordCheckpoint() });
  store.close();
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
