/**
 * kv_get over MCP with a 1,000-key store: `bun bench/kv.ts [RTA_BINARY...]`
 * (default dist/rta). Each binary serves kv_get of one key (a grant for it
 * issued first) and kv_list, over stdio; rounds are interleaved so the
 * machine's noise falls on every binary alike, and the median round is
 * printed in calls per second. Beside it, what one read costs without the
 * cache (decrypting and parsing the whole file), measured in this process.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Encrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import { formatStore, type KvEntry } from "../src/capabilities/kv/format.ts";
import { kvPlaces, readStore } from "../src/capabilities/kv/store.ts";
import { callRate } from "./mcpDriver.ts";
import { benchDir, median } from "./measure.ts";

const root = join(import.meta.dir, "..");
const given = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const binaries = given.length > 0 ? given.map((b) => resolve(b)) : [join(root, "dist", "rta")];
const ROUNDS = 5;
const CALLS = 1000;
const KEYS = 1000;
const { dir, env } = benchDir("kv");
const data = env.RTA_DATA_DIR as string;
const identity = join(dir, "identity.txt");
const serveEnv = { ...env, RTA_KV_IDENTITY: identity };

try {
  mkdirSync(data, { recursive: true });
  const key = await generateX25519Identity();
  writeFileSync(identity, `${key}\n`, { mode: 0o600 });
  const store = new Map<string, KvEntry>();
  const modified = new Date().toISOString();
  for (let i = 0; i < KEYS; i++) {
    const name = `team${i % 10}/service-${i}.token`;
    store.set(name, { name, value: `value-${i}-${"s".repeat(40)}`, comment: `key number ${i}`, modified });
  }
  const e = new Encrypter();
  e.addRecipient(await identityToRecipient(key));
  const file = join(data, "kv.age");
  writeFileSync(file, await e.encrypt(formatStore(store)), { mode: 0o600 });
  const grant = spawnSync(binaries[0] as string, ["grant", "allow", "kv.get", "--agent", "bench", "--ttl", "1h"], {
    env: serveEnv,
    stdio: "ignore",
  });
  if (grant.status !== 0) throw new Error("could not issue the grant");

  // one read without the cache: each copy is a file the process has not read
  const cold: number[] = [];
  for (let i = 0; i < 20; i++) {
    const copy = join(dir, `cold-${i}`);
    mkdirSync(copy);
    copyFileSync(file, join(copy, "kv.age"));
    const t0 = performance.now();
    await readStore(kvPlaces(copy, identity));
    cold.push(performance.now() - t0);
  }

  const rates = new Map<string, number[]>();
  const add = (k: string, v: number) => rates.set(k, [...(rates.get(k) ?? []), v]);
  const cmd = (bin: string) => [bin, "mcp", "serve", "--agent", "bench"];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, bin] of binaries.entries()) {
      add(`${i}:kv_get`, await callRate(cmd(bin), serveEnv, "kv_get", { name: "team3/service-503.token" }, CALLS));
      add(`${i}:kv_list`, await callRate(cmd(bin), serveEnv, "kv_list", { prefix: "team3/service-50" }, CALLS));
    }
  }
  console.log(`kv over stdio with a ${KEYS}-key store, calls/s, median of ${ROUNDS} interleaved rounds of ${CALLS}`);
  console.log(`  one read without the cache (decrypt and parse), in process: ${median(cold).toFixed(2)} ms`);
  for (const [i, bin] of binaries.entries()) {
    console.log(`  ${binaries.length > 1 ? `[${i}] ` : ""}${bin}`);
    for (const tool of ["kv_get", "kv_list"]) {
      const r = median(rates.get(`${i}:${tool}`) ?? []);
      console.log(`    ${tool.padEnd(8)} ${r.toFixed(0).padStart(6)}/s  ${(1e6 / r).toFixed(0).padStart(5)} us/call`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
