/**
 * The path gate's looks through libc's statx (src/gate/paths/look.ts) say what
 * node:fs's stat says, number for number: a kept root or a kept working-out
 * of rta's places is held against a Stats taken before, and a look spelled
 * otherwise would only ever say "changed".
 */
import { expect, test } from "bun:test";
import { lstatSync, mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cPath, look, lookOf, stillAt } from "../../src/gate/paths/look.ts";
import { tempDir } from "../support/fixtures.ts";

test("a look at a directory, a file, a link and /proc says what stat and lstat say", () => {
  const dir = realpathSync(tempDir());
  mkdirSync(join(dir, "d"));
  writeFileSync(join(dir, "f"), "x");
  symlinkSync("d", join(dir, "l"));
  for (const p of ["/", dir, join(dir, "d"), join(dir, "f"), join(dir, "l"), "/proc/self"]) {
    expect(look(cPath(p))).toEqual(lookOf(statSync(p)));
    expect(look(cPath(p), true)).toEqual(lookOf(lstatSync(p)));
    const st = statSync(p);
    expect(stillAt(cPath(p), st.dev, st.ino, st.ctimeMs)).toBe(true);
    expect(stillAt(cPath(p), st.dev, st.ino, st.ctimeMs + 1)).toBe(false);
  }
  expect(look(cPath(join(dir, "missing")))).toBeUndefined();
  expect(stillAt(cPath(join(dir, "missing")), 0, 0, 0)).toBe(false);
});
