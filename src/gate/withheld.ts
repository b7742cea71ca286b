/**
 * The rules of what the path gate withholds, asked at each step of a walk
 * (pathGate.ts): what an opened descriptor may be, where a write may land,
 * and what a missing parent may be made as. rta's own places (ownPlaces.ts),
 * the kernel's trees, other rta data dirs and git dirs (gitDirs.ts) are
 * refused here, each with a core.path.* code, message and hint.
 */
import { fstatSync, readlinkSync } from "node:fs";
import { resolve } from "node:path";
import { RtaError } from "../core/errors.ts";
import { isGitDirEntry, wouldBecomeGitDir } from "./gitDirs.ts";
import {
  isDataDirMark,
  isDataDirShaped,
  isInside,
  isKernelFs,
  isPlace,
  isPlaceAt,
  isStepAt,
  isUnder,
  type OwnPlaces,
  touchesPlace,
} from "./ownPlaces.ts";
import type { PathIntent } from "./pathGate.ts";
import { inFd } from "./procFd.ts";

export interface GateRules {
  /**
   * rta's own places as configured (data dir, config dir, identity file, and
   * git's config beside a home): withheld wherever they resolve when a path
   * is opened, with the way to them
   */
  withheld: string[];
  /** a regular file with more than one hard link may be opened */
  hardlinks: boolean;
  /** git dirs (.git, and any dir holding what a git dir holds) are not written, nor their credential files read */
  git: boolean;
  /** the kernel's own trees (/proc, /sys) are withheld */
  system: boolean;
}

/** A path refused: the code names why, the message names the path as the agent sent it and nothing of rta's layout. */
export function pathError(
  c: "outside" | "symlink" | "hardlink" | "withheld" | "unreadable" | "invalid",
  sent: string,
  message: string,
  hint: string,
): RtaError {
  return new RtaError(`core.path.${c}`, `${JSON.stringify(sent)} ${message}`, hint);
}

export const ROOT_HINT = "name something inside it";

export const OUTSIDE_HINT =
  "paths are confined to the roots the server was started with; ask the person running rta to add a root";

/** What one open is about, handed down the walk. */
export interface Walk {
  sent: string;
  intent: PathIntent;
  /** the gate's rules */
  rules: GateRules;
  /** the root as configured, and its real path */
  root: string;
  rootReal: string;
  /** rta's own places as they stood when this open began */
  own: OwnPlaces;
  /** the entries on the way to every root (asked once, and only for a write) */
  rootWay: () => string[];
  /** whether the root lies in a git dir (asked once, and only when it matters) */
  rootInGit: () => boolean;
}

export function placeWithheld(sent: string): RtaError {
  return pathError(
    "withheld",
    sent,
    "is withheld from agents, or holds or leads to something that is",
    "it is not a place an agent's call may write, move or remove",
  );
}

export function gitWithheld(sent: string): RtaError {
  return pathError(
    "withheld",
    sent,
    "is in a git directory, or would make one, which is never written",
    "work on the files of the repository, not its internals",
  );
}

/** What the kernel says an opened descriptor is must lie under the root and outside rta's own places. */
export function confirmOpened(at: Walk, fd: number): void {
  const real = readlinkSync(inFd(fd));
  if (!isUnder(real, at.rootReal)) throw pathError("outside", at.sent, "is outside the roots", OUTSIDE_HINT);
  if (
    isInside(real, at.own) ||
    isPlace(fstatSync(fd), at.own) ||
    (at.rules.system && isKernelFs(inFd(fd))) ||
    (keepsStores(at.rules) && isDataDirShaped(inFd(fd)))
  ) {
    throw pathError(
      "withheld",
      at.sent,
      "is withheld from agents",
      "it is not a place an agent's call may read or write",
    );
  }
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
  if (isInside(made, at.own) || touchesPlace(resolve(made, ...rest), at.own)) throw placeWithheld(at.sent);
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
 * root): a root is opened by its path at each call, so whoever replaces an
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
    isPlaceAt(inFd(parentFd, name), at.own) ||
    isStepAt(fstatSync(parentFd), name, at.own)
  )
    throw placeWithheld(at.sent);
}

/** Whether a real path is one a walk should skip: one of rta's places, another rta data dir, or the kernel's own. */
export function withheldBy(rules: GateRules, own: OwnPlaces, real: string): boolean {
  return (
    isInside(real, own) ||
    isPlaceAt(real, own) ||
    (rules.system && isKernelFs(real)) ||
    (keepsStores(rules) && isDataDirShaped(real))
  );
}

/** Whether rta's stores are kept from this gate's callers (an agent's); a person's gate keeps nothing. */
function keepsStores(rules: GateRules): boolean {
  return rules.withheld.length > 0;
}
