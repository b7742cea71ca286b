/**
 * rta's places worked out once and kept while every directory looked in is
 * unchanged: any change on the way to a place (an ancestor made, relinked,
 * renamed over, its mode changed) is seen at the next call, and a working-out
 * that looked in a directory changed just before it began is not kept.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isInside } from "../../src/gate/paths/ownPlaces.ts";
import { PlacesMemo } from "../../src/gate/paths/placesMemo.ts";
import { tempDir } from "../support/fixtures.ts";

/** Waits until the file system's clock has moved past `dir`'s last change, so the next change gets a later ctime. */
function pastLastChange(dir: string): void {
  const was = statSync(dir).ctimeMs;
  const probe = join(dir, "..", ".probe");
  for (;;) {
    writeFileSync(probe, "");
    if (statSync(probe).ctimeMs > was) break;
  }
  rmSync(probe);
}

/** Every directory above `path`, itself included. */
function ancestors(path: string): string[] {
  const out = [path];
  for (let p = path; p !== dirname(p); p = dirname(p)) out.push(dirname(p));
  return out;
}

/**
 * Runs `fn` until no directory above `path` changed while it ran (other
 * programs make files in the temp dir, which the places are worked out
 * through, and a change there rightly has them worked out again).
 */
function whileQuiet<T>(path: string, fn: () => T): T {
  for (let attempt = 0; ; attempt++) {
    const before = ancestors(path).map((d) => statSync(d).ctimeMs);
    const got = fn();
    const after = ancestors(path).map((d) => statSync(d).ctimeMs);
    if (before.every((c, i) => c === after[i]) || attempt === 100) return got;
  }
}

/** A memo whose working-outs count every directory as settled: as if each began long after the fixture was made. */
const settled = (places: string[]) => new PlacesMemo(places, false, () => Date.now() + 60_000);

describe("rta's places, kept between calls", () => {
  test("kept while nothing on the way changed", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "data"));
    const { first, again, workedOut } = whileQuiet(home, () => {
      const memo = settled([join(home, "data"), join(home, "config/rta")]);
      const first = memo.now();
      memo.now();
      return { first, again: memo.now(), workedOut: memo.workedOut };
    });
    expect(again).toBe(first);
    expect(workedOut).toBe(1);
  });

  test("an ancestor made a link after the first call moves the place at the next", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "elsewhere"));
    const memo = settled([join(home, "config/rta")]);
    expect(isInside(join(home, "elsewhere/rta/config.toml"), memo.now())).toBe(false);
    pastLastChange(home);
    symlinkSync(join(home, "elsewhere"), join(home, "config"));
    expect(isInside(join(home, "elsewhere/rta/config.toml"), memo.now())).toBe(true);
  });

  test("a link on the way replaced by another is seen", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "a"));
    mkdirSync(join(home, "b"));
    symlinkSync(join(home, "a"), join(home, "cfg"));
    const memo = settled([join(home, "cfg/rta")]);
    expect(isInside(join(home, "a/rta"), memo.now())).toBe(true);
    memo.now();
    pastLastChange(home);
    symlinkSync(join(home, "b"), join(home, "cfg.new"));
    renameSync(join(home, "cfg.new"), join(home, "cfg"));
    const now = memo.now();
    expect(isInside(join(home, "b/rta"), now)).toBe(true);
    expect(isInside(join(home, "a/rta"), now)).toBe(false);
  });

  test("a place made after the first call is known by its inode at the next", () => {
    const home = realpathSync(tempDir());
    const memo = settled([join(home, "data")]);
    expect(memo.now().ids.size).toBe(0);
    pastLastChange(home);
    mkdirSync(join(home, "data"));
    expect(memo.now().ids.size).toBe(1);
  });

  test("a deeper directory on the way, changed, is seen too", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "x/y"), { recursive: true });
    mkdirSync(join(home, "elsewhere"));
    const memo = settled([join(home, "x/y/z/rta")]);
    const first = memo.now();
    pastLastChange(join(home, "x/y"));
    symlinkSync(join(home, "elsewhere"), join(home, "x/y/z"));
    const now = memo.now();
    expect(now).not.toBe(first);
    expect(isInside(join(home, "elsewhere/rta"), now)).toBe(true);
  });

  test("a directory's mode changed is a change", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "d"));
    const memo = settled([join(home, "d/rta")]);
    const first = memo.now();
    pastLastChange(home);
    chmodSync(join(home, "d"), 0o700);
    expect(memo.now()).not.toBe(first);
  });

  test("a working-out that looked in a directory changed just before it began is done again at the next call", () => {
    const home = realpathSync(tempDir());
    // as if each working-out began 50 ms after the home was made
    const memo = new PlacesMemo([join(home, "data")], false, () => statSync(home).ctimeMs + 50);
    memo.now();
    memo.now();
    expect(memo.workedOut).toBe(2);
    // and kept once it began long after
    const workedOut = whileQuiet(home, () => {
      const later = new PlacesMemo([join(home, "data")], false, () => statSync(home).ctimeMs + 60_000);
      later.now();
      later.now();
      return later.workedOut;
    });
    expect(workedOut).toBe(1);
  });

  test("a directory the open just looked at stands for the check's own look at it, and only as it was found", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "data"));
    const { kept, stale, workedOut } = whileQuiet(home, () => {
      const memo = settled([join(home, "data")]);
      const first = memo.now();
      const st = statSync(home);
      const looked = { name: home, dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs };
      const kept = memo.now([looked]) === first;
      // a look that found the directory changed since is a change, whatever the directory says now
      const stale = memo.now([{ ...looked, ctimeMs: st.ctimeMs - 1 }]) === first;
      return { kept, stale, workedOut: memo.workedOut };
    });
    expect(kept).toBe(true);
    expect(stale).toBe(false);
    expect(workedOut).toBe(2);
  });

  test("a change after the open's look is seen at the next call, which looks again", () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "elsewhere"));
    const memo = settled([join(home, "config/rta")]);
    const st = statSync(home);
    expect(
      isInside(
        join(home, "elsewhere/rta/x"),
        memo.now([{ name: home, dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs }]),
      ),
    ).toBe(false);
    pastLastChange(home);
    symlinkSync(join(home, "elsewhere"), join(home, "config"));
    const now = statSync(home);
    expect(
      isInside(
        join(home, "elsewhere/rta/x"),
        memo.now([{ name: home, dev: now.dev, ino: now.ino, ctimeMs: now.ctimeMs }]),
      ),
    ).toBe(true);
  });
});
