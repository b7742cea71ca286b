/**
 * The walk under an opened directory (DirHandle.walk): every name looked up
 * inside the directory opened before it through `/proc/self/fd/<fd>/<name>`
 * with O_NOFOLLOW, a link reported and never followed. What the gate
 * withholds (rules.ts) is passed by in silence; what the server's own mode
 * keeps it from reading is passed by and counted, so a search says it saw
 * less than there is without a count telling of rta's own places.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import type { WalkEntry, WalkSummary } from "../../core/access.ts";
import type { Pacer } from "../../core/pacer.ts";
import { OpenedFd } from "./openedFile.ts";
import { inFd } from "./procFd.ts";
import { type Keeper, walkedFileWithheld, withheld } from "./rules.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Visits everything under the opened directory `dirFd`, depth first in name
 * order, to `maxDepth`, as DirHandle.walk says. Returns how many entries it
 * could not read. Throws `core.call.cancelled` through the pacer; refuses
 * nothing else.
 */
export async function walkTree(
  dirFd: number,
  keeper: Keeper,
  maxDepth: number,
  pacer: Pacer,
  visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
): Promise<WalkSummary> {
  const tally: WalkSummary = { skipped: 0 };
  const go = async (fd: number, prefix: string, depth: number): Promise<boolean> => {
    let names: string[];
    try {
      names = readdirSync(inFd(fd)).sort();
    } catch (err) {
      // a directory that opened and still refuses its listing (/proc's map_files): passed by and counted
      if (!denied(err)) throw err;
      tally.skipped++;
      return true;
    }
    for (const name of names) {
      if (pacer.due()) await pacer.pause();
      let stat: Stats;
      try {
        stat = lstatSync(inFd(fd, name));
      } catch (err) {
        if (denied(err) && !deniedWithheld(fd, name, keeper)) tally.skipped++;
        continue; // gone while we looked, or not ours to look at
      }
      const rel = prefix ? `${prefix}/${name}` : name;
      const entry = new Walked(rel, name, stat, depth, fd, keeper, tally);
      if (stat.isDirectory()) {
        const child = openChild(fd, name, true, keeper);
        if (child === WITHHELD) continue;
        if (child === DENIED) {
          // seen but not listed, as find lists a directory it cannot enter and counts it
          tally.skipped++;
          if ((await entry.visitedBy(visit)) === false) return false;
          continue;
        }
        try {
          if ((await entry.visitedBy(visit)) === false) return false;
          if (depth < maxDepth && !(await go(child, rel, depth + 1))) return false;
        } finally {
          closeSync(child);
        }
      } else if ((await entry.visitedBy(visit)) === false) return false;
    }
    return true;
  };
  await pacer.pause(); // a call cancelled as soon as it was sent stops here
  await go(dirFd, "", 1);
  return tally;
}

/** An entry a walk came to; its directory stays open while the visitor runs, and it opens nothing after. */
class Walked implements WalkEntry {
  /** false once the visitor is done with it: its directory may be closed then, and the number reused */
  private live = true;

  constructor(
    readonly rel: string,
    readonly name: string,
    readonly stat: Stats,
    readonly depth: number,
    private readonly dirFd: number,
    private readonly keeper: Keeper,
    private readonly tally: WalkSummary,
  ) {}

  /** Hands it to the visitor, for as long as that runs. */
  async visitedBy(visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>) {
    try {
      return await visit(this);
    } finally {
      this.live = false;
    }
  }

  openFile(): OpenedFd | undefined {
    if (!this.live) return undefined;
    const fd = openChild(this.dirFd, this.name, false, this.keeper);
    if (fd === DENIED) this.tally.skipped++;
    return typeof fd === "number" ? new OpenedFd(fd, this.stat.size) : undefined;
  }
}

/** What a walk passes by in silence: withheld, gone, or nothing to open (a link). */
const WITHHELD = "withheld";
/** What a walk passes by and counts: its mode keeps the server out. */
const DENIED = "denied";

/** Whether an error from the OS says the server may not read the entry (its mode, or a security module). */
function denied(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === "EACCES" || code === "EPERM";
}

/**
 * Whether an entry the server may not read is one the gate withholds, asked
 * by its path (it cannot be opened to be asked by descriptor): such an entry
 * is passed by in silence, or a count of what was skipped would tell of it.
 */
function deniedWithheld(dirFd: number, name: string, keeper: Keeper): boolean {
  try {
    const parent = readlinkSync(inFd(dirFd));
    return withheld(keeper.rules, keeper.own(), `${parent === "/" ? "" : parent}/${name}`);
  } catch {
    return true; // its directory is gone: nothing to count
  }
}

/**
 * Opens a child of an opened directory for a walk: a directory without
 * following a link, and only where the gate's rules let it be read. Returns
 * WITHHELD for what the walk passes by in silence, DENIED for what its mode
 * keeps the server from (and the gate does not withhold).
 */
function openChild(
  dirFd: number,
  name: string,
  dir: boolean,
  keeper: Keeper,
): number | typeof WITHHELD | typeof DENIED {
  let fd: number;
  try {
    fd = openSync(inFd(dirFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
  } catch (err) {
    return denied(err) && !deniedWithheld(dirFd, name, keeper) ? DENIED : WITHHELD;
  }
  try {
    const real = readlinkSync(inFd(fd));
    const st = fstatSync(fd);
    const kept = dir
      ? withheld(keeper.rules, keeper.own(), real)
      : walkedFileWithheld(keeper.rules, keeper.own(), dirFd, fd, real, st);
    if (kept) {
      closeSync(fd);
      return WITHHELD;
    }
  } catch {
    closeSync(fd);
    return WITHHELD;
  }
  return fd;
}
