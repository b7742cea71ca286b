/**
 * Start-up: median wall time over 20 runs of `dist/rta --version` and of
 * `dist/rta explain --json`, beside the floor measured in the same run: a Bun
 * hello-world compiled the same way.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, wallMedian } from "./measure.ts";

const rta = join(import.meta.dir, "..", "dist", "rta");
const dir = mkdtempSync(join(tmpdir(), "rta-bench-"));
try {
  writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');
  const built = spawnSync(
    process.execPath,
    [
      "build",
      join(dir, "hello.ts"),
      "--compile",
      "--minify",
      "--bytecode",
      "--format=esm",
      "--outfile",
      join(dir, "hello"),
    ],
    { stdio: "ignore" },
  );
  if (built.status !== 0) throw new Error("could not compile the hello-world floor");
  const env = { ...process.env, RTA_DATA_DIR: join(dir, "data"), RTA_CONFIG_DIR: join(dir, "config") };
  const floor = wallMedian(join(dir, "hello"), [], 20, env);
  const version = wallMedian(rta, ["--version"], 20, env);
  const explain = wallMedian(rta, ["explain", "--json"], 20, env);
  console.log("startup (median of 20 runs)");
  console.log(`  floor: compiled bun hello-world   ${fmt(floor)}`);
  console.log(
    `  rta --version                     ${fmt(version)}  (${(version / floor).toFixed(2)}x floor; target < 15 ms)`,
  );
  console.log(`  rta explain --json                ${fmt(explain)}  (${(explain / floor).toFixed(2)}x floor)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
