import { describe, expect, test } from "bun:test";
import { readLook, settledBefore, stillAsRead } from "../../src/core/recheck.ts";

describe("settledBefore", () => {
  test("a time with a fraction of a second is settled a tick's margin later", () => {
    expect(settledBefore(10_000.5, 10_050)).toBe(false);
    expect(settledBefore(10_000.5, 10_101)).toBe(true);
  });

  test("a time of a whole second may be one kept to the second (or two): it settles two seconds and more later", () => {
    expect(settledBefore(10_000, 10_900)).toBe(false);
    expect(settledBefore(10_000, 12_000)).toBe(false);
    expect(settledBefore(10_000, 12_101)).toBe(true);
  });
});

describe("stillAsRead", () => {
  const seen = { mtimeMs: 10_000, ctimeMs: 10_000, size: 12, ino: 7 };

  test("no look taken since the read: what was read stands", () => {
    expect(stillAsRead(readLook(seen, 10_500), seen)).toBe(true);
  });

  test("a new look at a file read before its mtime settled reads it again, however alike the looks", () => {
    expect(stillAsRead(readLook(seen, 10_500), { ...seen })).toBe(false);
  });

  test("a new look alike a settled read's stands; one that differs in mtime, size or inode does not", () => {
    const read = readLook(seen, 13_000);
    expect(stillAsRead(read, { ...seen })).toBe(true);
    expect(stillAsRead(read, { ...seen, mtimeMs: 10_001 })).toBe(false);
    expect(stillAsRead(read, { ...seen, size: 13 })).toBe(false);
    expect(stillAsRead(read, { ...seen, ino: 8 })).toBe(false);
    // an mtime set back to what it was (cp -p, touch -r) leaves the ctime of the edit
    expect(stillAsRead(read, { ...seen, ctimeMs: 14_000.5 })).toBe(false);
  });
});
