/** Test fixtures: temp dirs that clean themselves up, a fixed clock, fake host files. */
import { expect } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { redactorFor } from "../../src/cli/deps.ts";
import { ConfigSource } from "../../src/core/config.ts";
import type { Clock, HostFiles } from "../../src/core/deps.ts";
import { once, realHost } from "../../src/core/deps.ts";
import { RtaError } from "../../src/core/errors.ts";
import { type Deps, realTools } from "../../src/gate/deps.ts";
import { GateStore, type NewGrant } from "../../src/gate/gateStore.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { PolicySource } from "../../src/gate/policy.ts";
import { MemoryRecord, type RecordEntry } from "../../src/record/append.ts";

const made: string[] = [];

/** Removes every temp dir made so far; run once at the end of the run (test/support/cleanup.ts). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function tempDir(prefix = "rta-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes `files` (relative path -> content) under a new temp dir and returns it. */
export function tree(files: Record<string, string>): string {
  const root = tempDir();
  for (const [rel, body] of Object.entries(files)) {
    const file = join(root, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
  }
  return root;
}

/**
 * Runs `body` with a new data dir on a file system of its own: a 1 MB tmpfs
 * mounted for the test (so a test can fill it), unmounted after. Needs root.
 */
export async function onSmallDisk(body: (data: string) => Promise<void>): Promise<void> {
  const data = join(tempDir(), "data");
  mkdirSync(data);
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", data]);
  expect(mounted.exitCode).toBe(0);
  try {
    await body(data);
  } finally {
    Bun.spawnSync(["umount", "-l", data]);
  }
}

/** Whether this run may bind-mount (root, and a kernel that lets it): tests that need one skip without. */
export function canBindMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = tempDir();
  mkdirSync(join(probe, "a"));
  mkdirSync(join(probe, "b"));
  if (Bun.spawnSync(["mount", "--bind", join(probe, "a"), join(probe, "b")]).exitCode !== 0) return false;
  Bun.spawnSync(["umount", join(probe, "b")]);
  return true;
}

export function fixedClock(ms: number): Clock & { set(ms: number): void } {
  let now = ms;
  return {
    now: () => now,
    set: (v) => {
      now = v;
    },
  };
}

/** Dependencies for a test: a fixed clock, the real host, a record in memory, a fresh grant store, no policy. */
export function testDeps(overrides: Partial<Deps> = {}): Deps & { record: MemoryRecord } {
  const dir = tempDir();
  return {
    clock: fixedClock(1_700_000_000_000),
    host: realHost,
    record: new MemoryRecord(),
    gate: once(() => new GateStore(join(dir, "data", "gate.db"))),
    policy: new PolicySource(join(dir, "config", "policy.toml")),
    config: new ConfigSource(join(dir, "config", "config.toml")),
    dirs: { data: join(dir, "data"), config: join(dir, "config") },
    roots: new PathGate([dir], agentRules({ data: join(dir, "data"), config: join(dir, "config") })),
    redactor: redactorFor({ data: join(dir, "data"), config: join(dir, "config") }),
    ...realTools,
    ...overrides,
  } as Deps & { record: MemoryRecord };
}

export function hostAt(root: string): HostFiles {
  return {
    procRoot: join(root, "proc"),
    passwdFile: join(root, "etc/passwd"),
    osReleaseFile: join(root, "etc/os-release"),
  };
}

/** Issues a grant in a test's store, as `rta grant allow` would: for claude, any number of uses, ten minutes. */
export function grantFor(deps: Deps, over: Partial<NewGrant> & { target: string }) {
  const now = deps.clock.now();
  return deps.gate().issue({
    record: null,
    agent: "claude",
    connection: null,
    profile: null,
    host: null,
    args_digest: null,
    max_uses: null,
    issued_at: now,
    expires_at: now + 600_000,
    issued_by: "test",
    build: "rta test",
    digest: null,
    ...over,
  });
}

/** One call's line in the record, as a server writes it: claude over stdio, ok, in 1 ms. */
export function callEntry(session: string, capability = "sys_info"): RecordEntry {
  return {
    time: "2026-11-30T00:00:00.000Z",
    session,
    agent: "claude",
    client: "c",
    transport: "stdio",
    capability,
    outcome: "ok",
    duration_ms: 1,
    args: [],
  };
}

/**
 * Runs `use` while a process lives whose command line is `bash -c "sleep 60; true" holder ...args`, and ends it
 * after. `; true` keeps bash from handing its process to sleep, so the command line stays as spawned.
 */
export async function whileRunning<T>(args: string[], use: (pid: number) => Promise<T>): Promise<T> {
  const child = Bun.spawn(["bash", "-c", "sleep 60; true", "holder", ...args], { stdout: "ignore", stderr: "ignore" });
  try {
    while (!readFileSync(`/proc/${child.pid}/cmdline`, "utf8").includes("holder")) await Bun.sleep(5);
    return await use(child.pid);
  } finally {
    child.kill();
    await child.exited;
  }
}

/** The RtaError `act` throws; fails the test when it throws something else, or nothing. */
export function refusalOf(act: () => unknown): RtaError {
  try {
    act();
  } catch (err) {
    expect(err).toBeInstanceOf(RtaError);
    return err as RtaError;
  }
  throw new Error("nothing was refused");
}
