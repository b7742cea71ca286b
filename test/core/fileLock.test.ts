import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lockHolder, releaseFileLock, removeDeadAsides, removeDeadLock, tryFileLock } from "../../src/core/fileLock.ts";
import { tempDir } from "../support/fixtures.ts";

/** The id of a process that has ended. */
function deadPid(): number {
  const p = Bun.spawnSync(["true"]);
  return p.pid;
}

describe("a lock whose holder is gone", () => {
  test("is taken over", () => {
    const lock = join(tempDir(), "x.lock");
    writeFileSync(lock, String(deadPid()));
    expect(tryFileLock(lock)).toBe(true);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    releaseFileLock(lock);
    expect(existsSync(lock)).toBe(false);
  });

  test("is removed only while it is the lock found dead: one another rta took over first stays", () => {
    const lock = join(tempDir(), "x.lock");
    writeFileSync(lock, String(deadPid()));
    const seen = lockHolder(lock);
    expect(seen.alive).toBe(false);
    // another rta found it dead too, removed it and made its own, before this one acts on what it found
    unlinkSync(lock);
    writeFileSync(lock, String(process.pid));
    removeDeadLock(lock, seen.id);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    expect(tryFileLock(lock)).toBe(false);
  });

  test("a FIFO at the lock's name is held by no one and is taken over without a read that waits", () => {
    const lock = join(tempDir(), "x.lock");
    expect(Bun.spawnSync(["mkfifo", lock]).exitCode).toBe(0);
    expect(tryFileLock(lock)).toBe(true);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
  });
});

describe("a lock moved aside by a process killed before it removed it", () => {
  test("is removed once its process is gone; one a live process moved aside, and any other name, stay", () => {
    const dir = tempDir();
    const lock = join(dir, "kv.age.lock");
    const dead = `kv.age.lock.${deadPid()}.1.dead`;
    const live = `kv.age.lock.${process.pid}.3.dead`;
    const others = ["kv.age.lock.x.1.dead", "kv.age.lock.12.1.2.dead", "other.lock.1.1.dead", "kv.age"];
    for (const name of [dead, live, ...others]) writeFileSync(join(dir, name), "1");
    removeDeadAsides(lock);
    expect(readdirSync(dir).sort()).toEqual([live, ...others].sort());
    // taking the lock removes them too
    const later = `kv.age.lock.${deadPid()}.2.dead`;
    writeFileSync(join(dir, later), "1");
    expect(tryFileLock(lock)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["kv.age.lock", live, ...others].sort());
  });
});
