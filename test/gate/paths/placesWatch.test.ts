/**
 * rta's places kept under a watch (src/gate/paths/placesWatch.ts): a call
 * polls once, and a change on the way to a place, made by this process or
 * another, or a mount over a place or a directory on the way, is seen at the
 * next call all the same. Where no watch can be had, the directories are
 * looked at at each call and see the same changes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../../../src/gate/paths/ownPlaces.ts";
import { PlacesMemo } from "../../../src/gate/paths/placesMemo.ts";
import { canBindMount, tempDir } from "../../support/fixtures.ts";

/** Waits until the file system's clock has moved past `dir`'s last change, so the next change gets a later ctime. */
function pastLastChange(dir: string): void {
  const was = statSync(dir).ctimeMs;
  const probe = join(dir, ".probe");
  for (let i = 0; ; i++) {
    writeFileSync(probe, String(i));
    if (statSync(probe).ctimeMs > was) break;
  }
  Bun.spawnSync(["rm", probe]);
}

const mounted: string[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) Bun.spawnSync(["umount", m]);
});

for (const watched of [true, false]) {
  /** A memo whose working-outs count every directory as settled: as if each began long after the fixture was made. */
  const settled = (places: string[]) => new PlacesMemo(places, false, () => Date.now() + 60_000, watched);
  const kept = (memo: PlacesMemo) => {
    // Kept under a watch where one was asked for (a temp dir is on a local file system). Another program making a
    // file in the temp dir between a look and its watch has the working-out done again at the next call.
    for (let i = 0; i < 100 && memo.now() && memo.watching !== watched; i++);
    expect(memo.watching).toBe(watched);
    return memo.now();
  };

  describe(watched ? "under a watch" : "with no watch", () => {
    test("an ancestor made a link by another process is seen at the next call", () => {
      const home = realpathSync(tempDir());
      mkdirSync(join(home, "elsewhere"));
      const memo = settled([join(home, "config/rta")]);
      expect(isInside(join(home, "elsewhere/rta/x"), kept(memo))).toBe(false);
      pastLastChange(home);
      expect(Bun.spawnSync(["ln", "-s", join(home, "elsewhere"), join(home, "config")]).exitCode).toBe(0);
      expect(isInside(join(home, "elsewhere/rta/x"), memo.now())).toBe(true);
    });

    test("a directory on the way renamed over is seen at the next call", () => {
      const home = realpathSync(tempDir());
      mkdirSync(join(home, "a/rta"), { recursive: true });
      mkdirSync(join(home, "b/rta"), { recursive: true });
      const memo = settled([join(home, "a/rta")]);
      const first = kept(memo);
      pastLastChange(home);
      renameSync(join(home, "a"), join(home, "a.old"));
      renameSync(join(home, "b"), join(home, "a"));
      const now = memo.now();
      expect(now).not.toBe(first);
      expect(now.ids.has(`${statSync(join(home, "a/rta")).dev}:${statSync(join(home, "a/rta")).ino}`)).toBe(true);
    });

    test("a mode changed on the way is seen at the next call", () => {
      const home = realpathSync(tempDir());
      mkdirSync(join(home, "d/e"), { recursive: true });
      const memo = settled([join(home, "d/e/rta")]);
      const first = kept(memo);
      pastLastChange(join(home, "d"));
      chmodSync(join(home, "d"), 0o700);
      expect(memo.now()).not.toBe(first);
    });

    test("kept while nothing on the way changes", () => {
      const home = realpathSync(tempDir());
      mkdirSync(join(home, "data"));
      const memo = settled([join(home, "data")]);
      const first = kept(memo);
      // a file written and read inside a place, and in a directory beside the way, changes nothing on it
      writeFileSync(join(home, "data", "f"), "x");
      let again = first;
      for (let i = 0; i < 5; i++) again = memo.now();
      // another program may have changed the temp dir above the home meanwhile: then worked out again, rightly
      if (memo.workedOut === 1) expect(again).toBe(first);
    });

    // Root may bind-mount here (the tests run as root); where it may not, there is no mount to test.
    test.if(canBindMount())("a mount over a place, or over a directory on the way, is seen at the next call", () => {
      const home = realpathSync(tempDir());
      mkdirSync(join(home, "way/data"), { recursive: true });
      mkdirSync(join(home, "other/data"), { recursive: true });
      const memo = settled([join(home, "way/data")]);
      const first = kept(memo);
      const idOf = (p: string) => `${statSync(p).dev}:${statSync(p).ino}`;
      const before = idOf(join(home, "way/data"));
      expect(first.ids.has(before)).toBe(true);
      expect(Bun.spawnSync(["mount", "--bind", join(home, "other/data"), join(home, "way/data")]).exitCode).toBe(0);
      mounted.push(join(home, "way/data"));
      const now = memo.now();
      expect(now.ids.has(idOf(join(home, "way/data")))).toBe(true);
      expect(now.ids.has(before)).toBe(false);
      kept(memo);
      expect(Bun.spawnSync(["mount", "--bind", join(home, "other"), join(home, "way")]).exitCode).toBe(0);
      mounted.unshift(join(home, "way"));
      expect(memo.now().ids.has(idOf(join(home, "other/data")))).toBe(true);
    });
  });
}
