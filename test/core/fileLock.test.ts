import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lockHolder, releaseFileLock, removeDeadLock, tryFileLock } from "../../src/core/fileLock.ts";
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
