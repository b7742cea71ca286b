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
 * one of them is not the same directory with the same ctime.
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
import { cPath, stillAt } from "./look.ts";
import { type OwnPlaces, ownPlacesNow } from "./ownPlaces.ts";

interface Seen {
  /** the directory's path, as statx takes it */
  dir: Uint8Array;
  dev: number;
  ino: number;
  ctimeMs: number;
}

/** One set of places, worked out again only when a directory looked in has changed (see above). */
export class PlacesMemo {
  private kept: { own: OwnPlaces; seen: Seen[] } | undefined;

  /** `places` and `system` as ownPlacesNow takes them; `clock` the time in ms, the real one but in a test. */
  constructor(
    private readonly places: readonly string[],
    private readonly system: boolean,
    private readonly clock: () => number = Date.now,
  ) {}

  /** How many times the places were worked out (for a test to tell kept from worked out again). */
  workedOut = 0;

  /** The places as they stand now: the last working-out while every directory it looked in is as it was. */
  now(): OwnPlaces {
    const kept = this.kept;
    if (kept?.seen.every(unchanged)) return kept.own;
    const began = this.clock();
    this.workedOut++;
    const seen: Seen[] = [];
    const own = ownPlacesNow(this.places, this.system, (dir: string, st: Stats) => {
      seen.push({ dir: cPath(dir), dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs });
    });
    this.kept = seen.every((s) => settledBefore(s.ctimeMs, began)) ? { own: frozen(own), seen } : undefined;
    return own;
  }
}

/**
 * Whether a directory looked in is still the one seen, unchanged since: one look, building no Stats. One that
 * cannot be looked at (gone, or no longer searched the same way: its mode, a parent's) has changed.
 */
function unchanged(s: Seen): boolean {
  return stillAt(s.dir, s.dev, s.ino, s.ctimeMs);
}

/** Kept places are handed to many calls: none may change them. */
function frozen(own: OwnPlaces): OwnPlaces {
  Object.freeze(own.inside);
  Object.freeze(own.way);
  return Object.freeze(own);
}
