/**
 * The path gate's looks through libc's statx (src/gate/paths/look.ts) say what
 * node:fs's stat says, number for number: a kept root or a kept working-out
 * of rta's places is held against a Stats taken before, and a look spelled
 * otherwise would only ever say "changed".
 */
import { expect, test } from "bun:test";
import { closeSync, lstatSync, mkdirSync, openSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cPath, look, lookOf, mountOf, stillAt } from "../../src/gate/paths/look.ts";
import { tempDir } from "../support/fixtures.ts";

test("a look at a directory, a file, a link and /proc says what stat and lstat say", () => {
  const dir = realpathSync(tempDir());
  mkdirSync(join(dir, "d"));
  writeFileSync(join(dir, "f"), "x");
  symlinkSync("d", join(dir, "l"));
  for (const p of ["/", dir, join(dir, "d"), join(dir, "f"), join(dir, "l"), "/proc/self"]) {
    // and the mount it was reached through, which a Stats does not say
    expect(look(cPath(p))).toEqual({ ...lookOf(statSync(p)), mount: expect.any(Number) });
    expect(look(cPath(p), true)).toEqual({ ...lookOf(lstatSync(p)), mount: expect.any(Number) });
    const st = statSync(p);
    expect(stillAt(cPath(p), st.dev, st.ino, st.ctimeMs)).toBe(true);
    expect(stillAt(cPath(p), st.dev, st.ino, st.ctimeMs + 1)).toBe(false);
  }
  // a descriptor's mount is the one a look at its path says, so a kept root's is held against the look
  const fd = openSync(dir, "r");
  expect(mountOf(fd)).toBe(look(cPath(dir))?.mount as number);
  closeSync(fd);
  expect(look(cPath(join(dir, "missing")))).toBeUndefined();
  expect(stillAt(cPath(join(dir, "missing")), 0, 0, 0)).toBe(false);
});
