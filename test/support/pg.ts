/**
 * A PostgreSQL server for the tests of the shared store: the one RTA_TEST_PG names, or a private cluster this file
 * starts (initdb and pg_ctl in a temp dir, as nobody: postgres refuses root, on a free 127.0.0.1 port), once per
 * run (bun runs the test files in one process), stopped when the run ends. Where neither can be had, `pgServer()` is null and `PG_SKIPPED` says why, once
 * on stderr, so a run says plainly that it skipped the PostgreSQL tests.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { tempDir } from "./fixtures.ts";
import { AS_NOBODY, NOBODY } from "./nobody.ts";

/** A server the tests may use: a URL for a fresh database on it, and the admin URL. */
export interface PgServer {
  /** the URL of the server's admin database (postgres) */
  url: string;
  /** Makes a new empty database and returns its URL: each test its own. */
  freshDb(): Promise<string>;
}

/** Where initdb and pg_ctl are: on PATH, or in Debian's versioned dir. */
function pgBin(): string | undefined {
  const onPath = Bun.which("initdb");
  if (onPath) return join(onPath, "..");
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], "bin") : undefined;
}

/** A port free on 127.0.0.1 at the time of asking. */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function run(argv: string[]): { ok: boolean; text: string } {
  const p = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  return { ok: p.exitCode === 0, text: `${p.stdout.toString()}${p.stderr.toString()}` };
}

let started: Promise<PgServer | null> | undefined;
let finish: (() => Promise<void>) | undefined;
let stop: (() => void) | undefined;

/** Why the PostgreSQL tests were skipped, once a start has been tried and failed; else undefined. */
export let PG_SKIPPED: string | undefined;

async function start(): Promise<PgServer | null> {
  const named = process.env.RTA_TEST_PG;
  if (named) return server(named);
  const bin = pgBin();
  if (!bin) return skip("PostgreSQL is not installed (initdb not found); set RTA_TEST_PG to a server's URL");
  const base = realpathSync(tempDir("rta-pg-"));
  chmodSync(base, 0o755);
  const data = join(base, "data");
  const sockets = join(base, "run");
  mkdirSync(sockets);
  chownSync(base, NOBODY, NOBODY);
  chownSync(sockets, NOBODY, NOBODY);
  const asUser = process.getuid?.() === 0 ? AS_NOBODY : [];
  const init = run([...asUser, join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "rta", "-E", "UTF8", "--no-sync"]);
  if (!init.ok) return skip(`initdb failed: ${init.text.trim().split("\n").pop()}`);
  const port = await freePort();
  const opts = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const ctl = run([...asUser, join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", join(base, "log"), "-w", "start"]);
  if (!ctl.ok) return skip(`pg_ctl could not start the cluster: ${ctl.text.trim().split("\n").pop()}`);
  stop = () => run([...asUser, join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]);
  return server(`postgres://rta@127.0.0.1:${port}/postgres`);
}

function skip(why: string): null {
  PG_SKIPPED = why;
  process.stderr.write(`PostgreSQL tests skipped: ${why}\n`);
  return null;
}

async function server(url: string): Promise<PgServer | null> {
  const admin = new Bun.SQL(url, { max: 1 });
  try {
    await admin`select 1`;
  } catch (err) {
    await admin.close().catch(() => {});
    return skip(`no server answers at RTA_TEST_PG (${(err as Error).message})`);
  }
  let n = 0;
  const made: string[] = [];
  // bun runs every test file in one process, so the server is the run's, not a file's: cleanup.ts's hook at the end
  // of the run stops it (a server RTA_TEST_PG names is left as it was found, less the databases made here)
  finish = async () => {
    if (!stop)
      for (const name of made) await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.close().catch(() => {});
    stop?.();
  };
  return {
    url,
    async freshDb() {
      n += 1;
      const name = `rta_t${process.pid}_${n}_${Date.now().toString(36)}`;
      await admin.unsafe(`create database ${name}`);
      made.push(name);
      const u = new URL(url);
      u.pathname = `/${name}`;
      return u.toString();
    },
  };
}

/** The run's server, started at the first ask; null (PG_SKIPPED says why) when none can be had. */
export function pgServer(): Promise<PgServer | null> {
  started ??= start();
  return started;
}

/** Stops the run's server, if one was started: a private cluster whole, a named one less the databases made. */
export async function stopPgServer(): Promise<void> {
  await finish?.();
  finish = undefined;
}
