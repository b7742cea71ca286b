/**
 * The checks at each step of a walk (open.ts): what an opened descriptor may
 * be, where a write may land, and what a missing parent may be made as.
 * rta's own places (ownPlaces.ts), the kernel's trees, other rta data dirs
 * and git dirs (gitDirs.ts) are refused here, by the rules of rules.ts, each
 * with a core.path.* code, message and hint.
 */
import { randomBytes } from "node:crypto";
import { fstatSync, readlinkSync, renameSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import type { PathIntent } from "../../core/access.ts";
import { isGitDir, isGitDirEntry, isGitMark, wouldBecomeGitDir } from "./gitDirs.ts";
import {
  isDataDirMark,
  isDataDirShaped,
  isInside,
  isKernelFs,
  isPlaceAt,
  isStepAt,
  isUnder,
  type OwnPlaces,
  touchesPlace,
} from "./ownPlaces.ts";
import { inFd } from "./procFd.ts";
import {
  type GateRules,
  gitWithheld,
  keepsStores,
  OUTSIDE_HINT,
  pathError,
  placeWithheld,
  ROOT_HINT,
  type RootFacts,
  secretTempWithheld,
  withheld,
} from "./rules.ts";

/** What one open is about, handed down the walk. */
export interface Walk {
  sent: string;
  intent: PathIntent;
  /** the gate's rules */
  rules: GateRules;
  /** the root as configured, and its real path */
  root: string;
  rootReal: string;
  /**
   * For a root kept from an earlier call, whose real path was kept with it: reads that path again and, when the
   * root was moved meanwhile, takes the new one as `rootReal` (the root confirmed again under it) and says so.
   */
  rootMoved?: () => boolean;
  /** rta's own places as they stood when this open began */
  own: OwnPlaces;
  /** the entries on the way to every root (asked once, and only for a write) */
  rootWay: () => string[];
  /** whether the root lies in a git dir (asked once, and only when it matters) */
  rootInGit: () => boolean;
  /** the root's device, once the root is confirmed in this open to be on no kernel file system */
  plainDev?: number;
}

/**
 * What the kernel says an opened descriptor is must lie under the root and outside rta's own places; refuses
 * core.path.outside, core.path.withheld, and core.path.invalid where the kernel cannot name it (past PATH_MAX).
 * `st` is its fstat and `known` its real path, where the caller already has them; `facts`, what was asked of a
 * kept root's descriptor before, kept with it.
 */
export function confirmOpened(at: Walk, fd: number, st?: Stats, known?: string, facts?: RootFacts): void {
  let real: string;
  try {
    real = known ?? readlinkSync(inFd(fd));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENAMETOOLONG") throw err;
    throw pathError(
      "invalid",
      at.sent,
      "lies deeper than the system can name",
      "send a path to something nearer its root",
    );
  }
  if (!isUnder(real, at.rootReal) && !(at.rootMoved?.() && isUnder(real, at.rootReal)))
    throw pathError("outside", at.sent, "is outside the roots", OUTSIDE_HINT);
  const opened = st ?? fstatSync(fd);
  const own = placesAbout(at.own, at.rootReal);
  // On the root's own device (its superblock, kept alive by the root's open descriptor): its file system's type,
  // asked of the root in this open, is this one's too.
  if (withheld(at.rules, own, real, fd, opened, opened.dev === at.plainDev, facts)) {
    throw pathError(
      "withheld",
      at.sent,
      "is withheld from agents",
      "it is not a place an agent's call may read or write",
    );
  }
}

/** The places that can hold a path under each root, for each set of places kept (placesMemo.ts hands one out again). */
const aboutRoot = new WeakMap<OwnPlaces, Map<string, OwnPlaces>>();

/**
 * `own` with only the places a path under `rootReal` can lie inside: those the root lies in and those inside the
 * root. A path under the root is inside a place only if the place is one of them (both lie on the path's way up), so
 * whether a path under the root lies inside a place is the same asked of either.
 */
function placesAbout(own: OwnPlaces, rootReal: string): OwnPlaces {
  let byRoot = aboutRoot.get(own);
  if (byRoot === undefined) {
    byRoot = new Map();
    aboutRoot.set(own, byRoot);
  }
  let about = byRoot.get(rootReal);
  if (about === undefined) {
    const inside = own.inside.filter((p) => isUnder(rootReal, p) || isUnder(p, rootReal));
    about = { ...own, inside };
    if (byRoot.size < 16) byRoot.set(rootReal, about);
  }
  return about;
}

/**
 * A missing directory above a write's last name, about to be made empty by
 * the gate: it may be on the way to one of rta's places (a fresh home has
 * no .config yet), since an empty directory the gate made moves no place;
 * but the path it starts may not end in one, nor may it make a git dir.
 * Below a missing entry nothing can be a link yet, so the rest of the path
 * is joined as written, and a refusal comes before anything is made.
 */
export function confirmParent(at: Walk, parentFd: number, name: string, rest: readonly string[]): void {
  const parent = readlinkSync(inFd(parentFd));
  const made = resolve(parent, name);
  const end = resolve(made, ...rest);
  if (isInside(made, at.own) || touchesPlace(end, at.own) || secretTempWithheld(at.rules, end))
    throw placeWithheld(at.sent);
  // the same by the directory's identity, for a parent reached by another name (a bind mount)
  if (isStepAt(fstatSync(parentFd), name, at.own, true)) throw placeWithheld(at.sent);
  if (at.rules.git && wouldBecomeGitDir(inFd(parentFd), name)) throw gitWithheld(at.sent);
  if (keepsStores(at.rules) && isDataDirMark(name)) throw placeWithheld(at.sent);
}

/**
 * A write names an entry, not a descriptor, and the entry may not exist
 * yet. It may not lie inside one of rta's places, nor be on the way to one
 * (moving, removing or making it would move the place, or plant it); nor
 * may it be a git dir, or the entry that would make its directory one.
 */
export function confirmTarget(at: Walk, parentFd: number, name: string, isDir: boolean): void {
  confirmPlace(at, parentFd, name);
  // a proc or a sysfs mounted here, or another rta's data dir: not moved or removed, whatever its name
  if (isDir && at.rules.system && isKernelFs(inFd(parentFd, name))) throw placeWithheld(at.sent);
  if (isDir && keepsStores(at.rules) && isDataDirShaped(inFd(parentFd, name))) throw placeWithheld(at.sent);
  // nor is a directory made one: an agent's record.key would keep every agent out of the dir it lies in
  if (keepsStores(at.rules) && isDataDirMark(name)) throw placeWithheld(at.sent);
  if (!at.rules.git) return;
  if (isDir && isGitDirEntry(inFd(parentFd, name))) throw gitWithheld(at.sent);
  if (wouldBecomeGitDir(inFd(parentFd), name)) throw gitWithheld(at.sent);
}

/**
 * An entry, there or not, that is one of rta's places, lies inside one, or
 * leads to one; or that is a root or leads to one (a root inside another
 * root): a root is found by its path at each call, so whoever replaces an
 * entry on that path, with a link to a directory outside every root say,
 * decides where the root is.
 */
export function confirmPlace(at: Walk, parentFd: number, name: string): void {
  const parent = readlinkSync(inFd(parentFd));
  const target = parent === "/" ? `/${name}` : `${parent}/${name}`;
  if (at.rootWay().some((e) => isUnder(e, target)))
    throw pathError(
      "outside",
      at.sent,
      "is a root, or on the way to one, which cannot be written as a whole",
      ROOT_HINT,
    );
  if (
    touchesPlace(target, at.own) ||
    secretTempWithheld(at.rules, target) ||
    isPlaceAt(inFd(parentFd, name), at.own) ||
    isStepAt(fstatSync(parentFd), name, at.own)
  )
    throw placeWithheld(at.sent);
}

/**
 * After a write made a new entry `name` in the directory `parentFd`: whether
 * it made its directory a git dir, and if so, undo it and refuse. The gate
 * asked before the write (wouldBecomeGitDir), but two servers on one root can
 * each add one of the entries that make a git dir while neither sees the
 * other's, and an agent that plants a config first then owns the git dir they
 * make. Whichever entry is made last sees the others once it is made, so
 * asking again after the make closes that. `undo` takes back what the write did; when it cannot, what was
 * made is renamed to a name that is no mark. Refuses core.path.withheld when the directory was made a git dir.
 */
export function undoIfGitDir(parentFd: number, name: string, sent: string, undo: () => void): void {
  if (!isGitMark(name) || !isGitDir(inFd(parentFd))) return;
  try {
    undo();
  } catch {
    // Changed again meanwhile (written into, or its old name taken): what was made is moved out of the way
    // under a name that is no mark, so the directory is no git dir whoever wrote its config.
    try {
      renameSync(inFd(parentFd, name), inFd(parentFd, `.${name}.rta-${randomBytes(4).toString("hex")}.undone`));
    } catch {
      // gone already: nothing left of it to make the git dir
    }
  }
  throw gitWithheld(sent);
}
