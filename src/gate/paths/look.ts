/**
 * A look at a file's identity and state that builds no `Stats`: Linux's
 * statx(2) through libc, into one reused buffer, for the checks the path gate
 * makes at every call (is this directory still the one it was, unchanged?).
 * Node's stat builds a Stats object with four Dates each time; this answers
 * the few numbers asked. Where libc's statx cannot be reached (another OS, an
 * old libc), the same answer comes from node:fs.
 *
 * The numbers are spelled as node:fs spells them (`dev` as glibc's makedev,
 * times in ms), so a look can be held against a Stats taken before; were
 * they ever spelled otherwise, a look would only ever say "changed".
 */
import { constants, fstatSync, lstatSync, openSync, Stats, statSync } from "node:fs";
import {
  AT_FDCWD,
  AT_SYMLINK_NOFOLLOW,
  cPath,
  hasStatx,
  openAt,
  pathOf,
  STATX_BASIC_STATS,
  STATX_BTIME,
  STATX_MNT_ID,
  STATX_TYPE_INO_SIZE,
  statxAt,
  stx,
} from "../../core/statx.ts";

import { inFd } from "./procFd.ts";

export { cPath } from "../../core/statx.ts";

/** What a look says of a file: enough to tell it is the same inode, unchanged, with the same owner and mode. */
export interface Look {
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  /** the last change to the inode (a write, a chmod, a chown, an entry made or removed in a directory), in ms */
  ctimeMs: number;
  /**
   * the mount it was reached through, where the kernel says (Linux's statx): the same directory bound over itself
   * read-only is the same inode, unchanged, on another mount
   */
  mount?: number;
}

/**
 * A look at `path` (made by cPath), following a link at its end unless `noFollow`; undefined when it cannot be
 * looked at (not there, not searchable, any error). Refuses nothing.
 */
export function look(path: Uint8Array, noFollow = false): Look | undefined {
  if (!hasStatx()) return fromNode(path, noFollow);
  const v = statxAt(path, noFollow ? AT_SYMLINK_NOFOLLOW : 0, STATX_BASIC_STATS | STATX_MNT_ID);
  if (v === undefined) return undefined;
  return {
    dev: stx.dev(v),
    ino: stx.ino(v),
    mode: stx.mode(v),
    uid: stx.uid(v),
    gid: stx.gid(v),
    nlink: stx.nlink(v),
    size: stx.size(v),
    ctimeMs: stx.ctimeMs(v),
    mount: stx.mountId(v),
  };
}

/**
 * Whether a look at `path` (made by cPath), following a link at its end, finds what `seen` says (sameLook), with
 * nothing made of it; false when it cannot be looked at. Refuses nothing.
 */
export function looksAsSeen(path: Uint8Array, seen: Look): boolean {
  if (!hasStatx()) {
    const now = fromNode(path, false);
    return now !== undefined && sameLook(now, seen);
  }
  const v = statxAt(path, 0, STATX_BASIC_STATS | STATX_MNT_ID);
  return (
    v !== undefined &&
    stx.ino(v) === seen.ino &&
    stx.dev(v) === seen.dev &&
    stx.ctimeMs(v) === seen.ctimeMs &&
    stx.mode(v) === seen.mode &&
    stx.uid(v) === seen.uid &&
    stx.gid(v) === seen.gid &&
    stx.mountId(v) === seen.mount
  );
}

/** The mount an opened descriptor was reached through, where the kernel says (see Look's `mount`). */
export function mountOf(fd: number): number | undefined {
  if (!hasStatx()) return undefined;
  const v = statxAt(null, 0, STATX_MNT_ID, fd);
  return v === undefined ? undefined : stx.mountId(v);
}

/**
 * Whether the opened `fd` is the root of a mount of its own: a file bind-mounted onto a name, whose real path the
 * kernel gives as the name it was mounted on, wherever the file itself lies. False where statx cannot say.
 */
export function isMountRoot(fd: number): boolean {
  if (!hasStatx()) return false;
  const v = statxAt(null, 0, 0, fd);
  return v !== undefined && stx.mountRoot(v);
}

/**
 * An opened descriptor's Stats, as fstat gives them, and whether it is the root of a mount of its own (see
 * isMountRoot), from one statx: what a walk asks of the file it opened. Where statx cannot be asked, fstat answers
 * and the mount is asked apart. Throws what fstat throws.
 */
export function openedStat(fd: number): { stat: Stats; mountRoot: boolean } {
  const v = hasStatx() ? statxAt(null, 0, STATX_BASIC_STATS | STATX_BTIME, fd) : undefined;
  if (v === undefined) return { stat: fstatSync(fd), mountRoot: isMountRoot(fd) };
  const born = (stx.mask(v) & STATX_BTIME) !== 0 ? stx.birthtimeMs(v) : 0;
  const stat = new StatxStats(stx.dev(v), stx.ino(v), stx.mode(v), stx.nlink(v), stx.uid(v), stx.gid(v), stx.rdev(v));
  stat.size = stx.size(v);
  stat.blksize = stx.blksize(v);
  stat.blocks = stx.blocks(v);
  stat.atimeMs = stx.atimeMs(v);
  stat.mtimeMs = stx.mtimeMs(v);
  stat.ctimeMs = stx.ctimeMs(v);
  stat.birthtimeMs = born;
  return { stat: stat as unknown as Stats, mountRoot: stx.mountRoot(v) };
}

/**
 * A Stats made from statx's numbers, with node:fs's fields in node:fs's order and Stats's own methods and dates (its
 * prototype): Stats's own constructor costs about ten times as much.
 */
class StatxStats {
  size = 0;
  blksize = 0;
  blocks = 0;
  atimeMs = 0;
  mtimeMs = 0;
  ctimeMs = 0;
  birthtimeMs = 0;
  constructor(
    public dev: number,
    public ino: number,
    public mode: number,
    public nlink: number,
    public uid: number,
    public gid: number,
    public rdev: number,
  ) {}
}
Object.setPrototypeOf(StatxStats.prototype, Stats.prototype);

/**
 * Whether `path` (made by cPath) is still the directory or file of device `dev` and inode `ino`, unchanged since
 * `ctimeMs`: one look, with nothing made of it. False when it cannot be looked at. Refuses nothing.
 */
export function stillAt(path: Uint8Array, dev: number, ino: number, ctimeMs: number): boolean {
  if (!hasStatx()) {
    const st = fromNode(path, false);
    return st !== undefined && st.dev === dev && st.ino === ino && st.ctimeMs === ctimeMs;
  }
  const v = statxAt(path, 0, STATX_BASIC_STATS, AT_FDCWD);
  return v !== undefined && stx.ino(v) === ino && stx.ctimeMs(v) === ctimeMs && stx.dev(v) === dev;
}

/**
 * Whether `path` (made by cPath), followed as stat follows it, is still the file of device `dev` and inode `ino`,
 * changed or not: one look, with nothing made of it. False when it cannot be looked at. Refuses nothing.
 */
export function sameInode(path: Uint8Array, dev: number, ino: number): boolean {
  if (!hasStatx()) {
    const st = fromNode(path, false);
    return st !== undefined && st.dev === dev && st.ino === ino;
  }
  const v = statxAt(path, 0, STATX_TYPE_INO_SIZE, AT_FDCWD);
  return v !== undefined && stx.ino(v) === ino && stx.dev(v) === dev;
}

/** The same numbers of a Stats node:fs gave. */
export function lookOf(st: Stats): Look {
  return {
    dev: st.dev,
    ino: st.ino,
    mode: st.mode,
    uid: st.uid,
    gid: st.gid,
    nlink: st.nlink,
    size: st.size,
    ctimeMs: st.ctimeMs,
  };
}

/**
 * Whether two looks saw the same inode, with the same type, mode and owner, unchanged since (its ctime), through
 * the same mount.
 */
export function sameLook(a: Look, b: Look): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.mode === b.mode &&
    a.uid === b.uid &&
    a.gid === b.gid &&
    a.ctimeMs === b.ctimeMs &&
    a.mount === b.mount
  );
}

function fromNode(path: Uint8Array, noFollow: boolean): Look | undefined {
  const name = pathOf(path);
  try {
    const st = noFollow ? lstatSync(name, { throwIfNoEntry: false }) : statSync(name, { throwIfNoEntry: false });
    return st === undefined ? undefined : lookOf(st);
  } catch {
    return undefined;
  }
}

/** What a walk asks of an entry it comes to: its type, its identity and its link count, as a Stats says them. */
export type EntryStat = Pick<Stats, "dev" | "ino" | "nlink" | "mode" | "isFile" | "isDirectory" | "isSymbolicLink">;

const { S_IFMT, S_IFREG, S_IFDIR, S_IFLNK } = constants;

/** An entry's type and identity from one statx, with the three questions a Stats answers of its type. */
class EntryLook implements EntryStat {
  constructor(
    readonly mode: number,
    readonly dev: number,
    readonly ino: number,
    readonly nlink: number,
  ) {}
  isFile(): boolean {
    return (this.mode & S_IFMT) === S_IFREG;
  }
  isDirectory(): boolean {
    return (this.mode & S_IFMT) === S_IFDIR;
  }
  isSymbolicLink(): boolean {
    return (this.mode & S_IFMT) === S_IFLNK;
  }
}

/**
 * What the entry `name` of the opened directory `dirFd` is, not followed if a link: one statx under the
 * descriptor, building no Stats. Where statx cannot be asked, or the kernel refused it, node:fs's lstat of the same
 * entry answers instead, and throws what it throws (ENOENT, EACCES, ...) for the caller to say.
 */
export function entryAt(dirFd: number, name: string): EntryStat {
  if (hasStatx()) {
    const v = statxAt(cPath(name), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, dirFd);
    if (v !== undefined) return new EntryLook(stx.mode(v), stx.dev(v), stx.ino(v), stx.nlink(v));
  }
  return lstatSync(inFd(dirFd, name));
}

/**
 * Opens the entry `name` of the opened directory `dirFd` with `flags`: openat under the descriptor, or, where that
 * cannot be asked or the kernel refused it, node:fs's open of the same entry through /proc, whose error says why.
 */
export function openIn(dirFd: number, name: string, flags: number): number {
  const fd = openAt(dirFd, cPath(name), flags);
  return fd >= 0 ? fd : openSync(inFd(dirFd, name), flags);
}
