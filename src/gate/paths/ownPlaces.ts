/**
 * rta's own places (its data dir, its config dir, the file RTA_KV_IDENTITY
 * names) as the kernel would find them now, for the path gate.
 *
 * A place is not only where it is but how it is reached: the config dir is
 * found by looking up each component of its path in the directory before
 * it, following links. Whoever can replace one of those entries (move a
 * staged directory onto a missing ancestor, put a link where a parent will
 * be) decides what rta reads as its config, whether or not the dir exists
 * yet. So the gate keeps two lists, worked out when it is asked, not once at
 * startup, since an ancestor made or relinked later moves the place:
 *
 * - `inside`: where each place resolves to; nothing under it is opened;
 * - `way`: every entry looked up on the way there, existing or not; none of
 *   them, nor anything above one, is written, moved, made or removed;
 * - `ids`: the device and inode of each place that exists, so the same
 *   directory reached by another path (a bind mount) is known too;
 * - `steps`: the same for the way: each existing directory a lookup passes
 *   through, by device and inode, with the names looked up in it, so an
 *   entry on the way is known by a bind mount's name too.
 */
import { lstatSync, readlinkSync, type Stats, statfsSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { RECORD_KEY_FILE } from "../../record/key.ts";
import { GATE_STORE_FILE } from "../gateStore.ts";
import { holds } from "./procFd.ts";

/** The most links one lookup passes through, as the kernel's own limit; past it, a loop. */
export const MAX_LINK_HOPS = 40;

/** The kernel's view of processes and devices: never a file of anyone's own. */
const SYSTEM_PLACES = ["/proc", "/sys"];

/**
 * The same trees by the type of file system statfs reports, since /proc and
 * /sys are only their usual names: a chroot or a container's root under a
 * root can have a proc (the server's own environ, maps, fds) mounted inside.
 * proc, sysfs, and what is mounted under /sys: debugfs, tracefs, securityfs,
 * cgroup, cgroup2, efivarfs, bpf, configfs, pstore.
 */
const KERNEL_FS_TYPES = new Set([
  0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x73636673, 0x27e0eb, 0x63677270, 0xde5e81e4, 0xcafe4a11, 0x62656570,
  0x6165676c,
]);

/**
 * The files that make a directory an rta data dir, whoever's: the record's
 * key and the grant store, both made by a server's first call. A data dir
 * this server was not started with (a backup of its own, which holds the
 * live record's key; a second server's, with its grants and locks) is known
 * by them, as a git dir is by its marks. Both are asked for, so another
 * program's gate.db alone does not shut a directory.
 */
const DATA_DIR_MARKS = [RECORD_KEY_FILE, GATE_STORE_FILE];

/** Whether `name` is one of the files that make a directory an rta data dir. */
export function isDataDirMark(name: string): boolean {
  return DATA_DIR_MARKS.includes(name);
}

/** Whether a directory (by a path that names it, e.g. `/proc/self/fd/<fd>`) holds what an rta data dir holds. */
export function isDataDirShaped(dir: string): boolean {
  return DATA_DIR_MARKS.every((name) => holds(dir, name));
}

/** Whether a path (`/proc/self/fd/<fd>` for an opened one) lies on one of the kernel's own file systems. */
export function isKernelFs(path: string): boolean {
  try {
    return KERNEL_FS_TYPES.has(Number(statfsSync(path).type));
  } catch {
    return false; // nothing there (any more)
  }
}

export interface OwnPlaces {
  /** real paths nothing under which is opened */
  inside: string[];
  /** entries on the way to them; a write whose target is one, or above one, would move a place */
  way: string[];
  /** `dev:ino` of each place that exists */
  ids: Set<string>;
  /** `dev:ino` of each existing directory on the way, with each name looked up in it: true when that name is a place */
  steps: Map<string, Map<string, boolean>>;
}

/** True when `path` is `base` or lies under it, compared by whole components, never by string prefix. */
export function isUnder(path: string, base: string): boolean {
  if (base === "/") return path.startsWith("/");
  // no `${base}/` made to compare: this is asked of every place at every open
  return path.startsWith(base) && (path.length === base.length || path.charCodeAt(base.length) === SLASH);
}

const SLASH = 0x2f;

/**
 * The places and the way to each, as the file system stands now; /proc and /sys too when `system`. `lookedIn`
 * is told each directory a lookup looked in, by its path, and what stat said of it, and `found` each place there
 * is, with what stat said of it (its device and inode, which a mount over it changes and its directory does not
 * see): what was found depends on nothing else (placesMemo.ts).
 */
export function ownPlacesNow(
  places: readonly string[],
  system: boolean,
  lookedIn?: (dir: string, st: Stats) => void,
  found?: (place: string, st: Stats) => void,
): OwnPlaces {
  const inside = new Set<string>();
  const way = new Set<string>();
  const ids = new Set<string>();
  const steps = new Map<string, Map<string, boolean>>();
  const look = new Lookups(lookedIn);
  for (const place of places) {
    const spelled = resolve(place);
    const st = look.stat(spelled);
    if (st) {
      ids.add(idOf(st));
      found?.(spelled, st);
    } // else not made yet: it has no inode to be known by
    const traced = trace(spelled, look);
    inside.add(spelled);
    inside.add(traced.real);
    for (const e of traced.entries) way.add(e);
    for (const step of traced.steps) {
      const names = steps.get(step.dir) ?? new Map<string, boolean>();
      names.set(step.name, (names.get(step.name) ?? false) || step.last);
      steps.set(step.dir, names);
    }
    // each ancestor as written, in case a lookup failed part way for a reason other than absence
    for (let p = spelled; p !== dirname(p); p = dirname(p)) way.add(p);
  }
  if (system) {
    for (const p of SYSTEM_PLACES) {
      inside.add(p);
      way.add(p);
    }
  }
  return { inside: [...inside], way: [...way], ids, steps };
}

/** A file's identity, `dev:ino`, whatever path it was reached by. */
export function idOf(st: Stats): string {
  return `${st.dev}:${st.ino}`;
}

/**
 * Every entry looked up on the way to `path` (through links, as the kernel
 * would) and each of its ancestors as written: replacing any of them moves
 * what the path names.
 */
export function wayTo(path: string): string[] {
  const spelled = resolve(path);
  const way = new Set(trace(spelled, new Lookups()).entries);
  for (let p = spelled; p !== dirname(p); p = dirname(p)) way.add(p);
  return [...way];
}

/** Whether what a stat describes is one of the places itself, by whatever path it was reached. */
export function isPlace(st: Stats, own: OwnPlaces): boolean {
  return own.ids.has(idOf(st));
}

/** Whether an opened thing's real path is a place or lies inside one. */
export function isInside(real: string, own: OwnPlaces): boolean {
  return own.inside.some((p) => isUnder(real, p));
}

/**
 * Whether a write at `target` (a real parent joined with a name, existing or
 * not) would reach a place: it lies inside one, or it is an entry on the way
 * to one, or above such an entry (moving, removing or making it moves the place).
 */
export function touchesPlace(target: string, own: OwnPlaces): boolean {
  return isInside(target, own) || own.way.some((e) => isUnder(e, target));
}

interface Step {
  /** `dev:ino` of the directory looked in */
  dir: string;
  name: string;
  last: boolean;
}

/**
 * Whether `name` in an opened directory (its fstat) is an entry on the way to
 * a place, by whatever path the directory was reached; with `place`, only
 * the last name of a place's own path counts.
 */
export function isStepAt(dir: Stats, name: string, own: OwnPlaces, place = false): boolean {
  const found = own.steps.get(idOf(dir))?.get(name);
  return found === undefined ? false : found || !place;
}

/**
 * Looks up an absolute path as the kernel would, component by component,
 * following links, and records every entry it looks up. Where a component is
 * missing, the rest is joined as written: that is where the place will be
 * once it is made. `steps` are the lookups made in a directory that exists
 * (by its device and inode); `last` marks one of the place's own name, or of
 * a link that stands for it.
 */
function trace(path: string, look: Lookups): { real: string; entries: string[]; steps: Step[] } {
  const entries: string[] = [];
  const steps: Step[] = [];
  const queue = path.split("/");
  let current = "/";
  let missing = false;
  let hops = 0;
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = current === "/" ? `/${name}` : `${current}/${name}`; // a name holds no slash, and current is absolute
    entries.push(next);
    if (!missing) {
      const dir = look.dir(current);
      const entry = dir ? look.lstat(next) : undefined;
      if (dir) steps.push({ dir: idOf(dir), name, last: !queue.some((p) => p !== "" && p !== ".") });
      if (!entry) missing = true;
      else if (entry.isSymbolicLink() && hops < MAX_LINK_HOPS) {
        const target = look.link(next);
        if (target === undefined) missing = true;
        else {
          hops++;
          queue.unshift(...target.split("/"));
          if (isAbsolute(target)) current = "/";
          continue;
        }
      }
    }
    current = next;
  }
  return { real: current, entries, steps };
}

/**
 * The lookups of one working-out of the places, each made once: the places
 * share most of their ancestors (the home, the data dir's parents), and each
 * would otherwise stat them again. Undefined where there is nothing to find.
 */
class Lookups {
  private readonly stats = new Map<string, Stats | undefined>();
  private readonly told = new Set<string>();

  constructor(private readonly lookedIn?: (dir: string, st: Stats) => void) {}

  /** A directory a lookup looks in: stat, and told to `lookedIn` once. */
  dir(path: string): Stats | undefined {
    const st = this.stat(path);
    if (st && this.lookedIn && !this.told.has(path)) {
      this.told.add(path);
      this.lookedIn(path, st);
    }
    return st;
  }
  private readonly lstats = new Map<string, Stats | undefined>();
  private readonly links = new Map<string, string | undefined>();

  // Most places are not made yet: nothing there is an answer, not an error to throw and catch.
  stat(path: string): Stats | undefined {
    return remembered(this.stats, path, () => statSync(path, { throwIfNoEntry: false }));
  }

  lstat(path: string): Stats | undefined {
    return remembered(this.lstats, path, () => lstatSync(path, { throwIfNoEntry: false }));
  }

  link(path: string): string | undefined {
    return remembered(this.links, path, () => readlinkSync(path));
  }
}

function remembered<T>(seen: Map<string, T | undefined>, key: string, find: () => T): T | undefined {
  if (seen.has(key)) return seen.get(key);
  let found: T | undefined;
  try {
    found = find();
  } catch {
    found = undefined;
  }
  seen.set(key, found);
  return found;
}

/** Whether the entry at a path, not followed if it is a link, is one of the places reached by another name (a bind mount). */
export function isPlaceAt(path: string, own: OwnPlaces): boolean {
  if (own.ids.size === 0) return false;
  try {
    return isPlace(lstatSync(path), own);
  } catch {
    return false; // nothing there (yet)
  }
}
