/**
 * rta's own places (ownPlaces.ts), worked out once and used again for as long
 * as nothing they were worked out from has changed.
 *
 * What a working-out finds depends only on the entries it looked up, and each
 * of those lies in a directory it looked in. Any change to an entry (made,
 * removed, renamed over, relinked, its directory's mode changed) sets that
 * directory's change time (ctime) to the time of the change, and no one but
 * the kernel sets a ctime: `touch -d` sets the others and ctime to now. A
 * mount over one of them gives its path another device and inode. So each
 * call stats the directories looked in, and works the places out again when
 * one of them is not the same directory with the same ctime. Each place
 * there is is known by its device and inode too (a bind mount elsewhere of
 * the same directory is withheld by them), and a mount over a place gives it
 * others while its directory's ctime stays: so each call also asks whether the
 * mount table changed (mounts.ts), or, where that cannot be asked, looks at
 * each place found, and works the places out again when one is another inode.
 *
 * A ctime is taken from a clock the kernel moves at each tick, so a second
 * change in the tick of the first leaves it as it was. A working-out is therefore kept only when
 * every directory it looked in last changed well before it began: a change
 * after it began then has a later ctime. One that looked in a directory that
 * changed just before is done again at the next call, until it settles.
 * Some file systems keep times to the whole second (ext3, ext4 made with
 * small inodes, HFS+) or two (FAT): there a change has the ctime of the
 * second it fell in, however far into it, so a ctime of a whole second must
 * lie that much further back (core/recheck.ts settledBefore).
 */
import type { Stats } from "node:fs";
import { settledBefore } from "../../core/recheck.ts";
import { cPath, sameInode, stillAt } from "./look.ts";
import { mountChanges } from "./mounts.ts";
import { type OwnPlaces, ownPlacesNow } from "./ownPlaces.ts";

interface Seen {
  /** the directory's path, as statx takes it */
  dir: Uint8Array;
  /** the same path as text */
  name: string;
  dev: number;
  ino: number;
  ctimeMs: number;
}

interface Found {
  /** the place's path, as statx takes it, followed as a stat follows it */
  place: Uint8Array;
  dev: number;
  ino: number;
}

/**
 * A directory looked at by its path in this same open, following a link as statx does by default, with what the
 * look found: a root served from its kept descriptor (roots.ts). Where it is one of the directories the places
 * were worked out from, that look stands for the check's own, asked of the same path in the same instant.
 */
export interface LookedDir {
  name: string;
  dev: number;
  ino: number;
  ctimeMs: number;
}

/** One set of places, worked out again only when a directory looked in has changed (see above). */
export class PlacesMemo {
  private kept: { own: OwnPlaces; seen: Seen[]; found: Found[]; mounts: number | undefined } | undefined;

  /** `places` and `system` as ownPlacesNow takes them; `clock` the time in ms, the real one but in a test. */
  constructor(
    private readonly places: readonly string[],
    private readonly system: boolean,
    private readonly clock: () => number = Date.now,
  ) {}

  /** How many times the places were worked out (for a test to tell kept from worked out again). */
  workedOut = 0;

  /**
   * The places as they stand now: the last working-out while every directory it looked in is as it was. `looked`,
   * directories just looked at by their paths, are not looked at again.
   */
  now(looked?: readonly LookedDir[]): OwnPlaces {
    const kept = this.kept;
    if (kept !== undefined && allUnchanged(kept.seen, looked) && foundStill(kept)) return kept.own;
    // taken before the working-out: a mount made while it looks is seen at the next call
    const mounts = mountChanges();
    const began = this.clock();
    this.workedOut++;
    const seen: Seen[] = [];
    const found: Found[] = [];
    const own = ownPlacesNow(
      this.places,
      this.system,
      (dir: string, st: Stats) => {
        seen.push({ dir: cPath(dir), name: dir, dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs });
      },
      (place: string, st: Stats) => {
        found.push({ place: cPath(place), dev: st.dev, ino: st.ino });
      },
    );
    const settled = seen.every((s) => settledBefore(s.ctimeMs, began));
    this.kept = settled ? { own: frozen(own), seen, found, mounts } : undefined;
    return own;
  }
}

/**
 * Whether every directory looked in is still the one seen, unchanged since: one look each, building no Stats, but
 * for those `looked` already looked at. One that cannot be looked at (gone, or no longer searched the same way:
 * its mode, a parent's) has changed.
 */
function allUnchanged(seen: readonly Seen[], looked: readonly LookedDir[] | undefined): boolean {
  for (const s of seen) {
    const l = looked === undefined ? undefined : lookedAt(looked, s.name);
    const same =
      l !== undefined
        ? s.dev === l.dev && s.ino === l.ino && s.ctimeMs === l.ctimeMs
        : stillAt(s.dir, s.dev, s.ino, s.ctimeMs);
    if (!same) return false;
  }
  return true;
}

/** The look among `looked` at the directory `name`, if one was taken. */
function lookedAt(looked: readonly LookedDir[], name: string): LookedDir | undefined {
  for (const l of looked) if (l.name === name) return l;
  return undefined;
}

/**
 * Whether each place found is still the inode it was. Only a mount gives a place's path another inode while every
 * directory looked in is unchanged: where the mount table can be watched (mounts.ts), one ask of it answers for all
 * of them, and any change to it has the places worked out again; elsewhere each place is looked at.
 */
function foundStill(kept: { found: readonly Found[]; mounts: number | undefined }): boolean {
  if (kept.mounts !== undefined) return mountChanges() === kept.mounts;
  return kept.found.every(still);
}

/** Whether a place found is still the inode it was: a mount over it, or over the way to it, makes it another. */
function still(f: Found): boolean {
  return sameInode(f.place, f.dev, f.ino);
}

/** Kept places are handed to many calls: none may change them. */
function frozen(own: OwnPlaces): OwnPlaces {
  Object.freeze(own.inside);
  Object.freeze(own.way);
  return Object.freeze(own);
}
