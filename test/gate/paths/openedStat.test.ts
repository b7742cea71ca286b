/**
 * What the walk asks of a file it opened comes from one statx (src/gate/paths/look.ts openedStat): a Stats that is
 * node:fs's own in every field, date, method and key order, and whether the file is a mount's root.
 */
import { expect, test } from "bun:test";
import { closeSync, fstatSync, openSync, Stats, writeFileSync } from "node:fs";
import {
  cPath,
  isMountRoot,
  type Look,
  look,
  looksAsSeen,
  openedStat,
  sameLook,
} from "../../../src/gate/paths/look.ts";
import { tempDir } from "../../support/fixtures.ts";

const METHODS = ["isFile", "isDirectory", "isSymbolicLink", "isFIFO", "isSocket", "isCharacterDevice", "isBlockDevice"];

test.each(["/", "/tmp", "/dev/null", "/proc/self/status", import.meta.path])("%s reads as fstat reads it", (path) => {
  const fd = openSync(path, "r");
  try {
    const want = fstatSync(fd) as unknown as Record<string, unknown>;
    const { stat, mountRoot } = openedStat(fd);
    const got = stat as unknown as Record<string, unknown>;
    expect(stat).toBeInstanceOf(Stats);
    expect(Object.keys(got)).toEqual(Object.keys(want));
    for (const key of [...Object.keys(want), "atime", "mtime", "ctime", "birthtime"])
      expect(String(got[key])).toBe(String(want[key]));
    for (const m of METHODS) expect((got[m] as () => boolean).call(got)).toBe((want[m] as () => boolean).call(want));
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    expect(mountRoot).toBe(isMountRoot(fd));
  } finally {
    closeSync(fd);
  }
});

test("a kept look is checked against a new one with nothing made of it, as sameLook checks two", async () => {
  const dir = tempDir();
  const path = cPath(dir);
  const seen = look(path) as Look;
  expect(looksAsSeen(path, seen)).toBe(true);
  expect(looksAsSeen(path, { ...seen, mount: (seen.mount ?? 0) + 1 })).toBe(false);
  expect(looksAsSeen(path, { ...seen, uid: seen.uid + 1 })).toBe(false);
  expect(looksAsSeen(cPath(`${dir}/none`), seen)).toBe(false);
  await Bun.sleep(20);
  writeFileSync(`${dir}/new`, "");
  expect(looksAsSeen(path, seen)).toBe(sameLook(look(path) as Look, seen));
  expect(looksAsSeen(path, seen)).toBe(false);
});
