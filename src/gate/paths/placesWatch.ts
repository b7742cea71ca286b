/**
 * The kernel's word that something on the way to rta's places may have
 * changed (placesMemo.ts): an inotify watch on each directory the places were
 * worked out through, and the mount table. A change to an entry of a watched
 * directory (made, removed, renamed over or away, relinked), to its mode,
 * owner or ACL, or to the directory itself (removed, renamed) is queued on the
 * watch by the call that makes it, before that call returns; a mount or an
 * unmount anywhere in this process's mount namespace is told by the mount
 * table's descriptor. So one poll(2) per call says whether anything that
 * could move a place happened since the watch was set, where otherwise each
 * directory and each place would be looked at.
 *
 * Only what the kernel itself changes is told: a directory on a network or
 * user-space file system (NFS, SMB, FUSE, 9p) or an overlay can be changed
 * by another machine or below the overlay with no word to this one. Those
 * are looked at at each call as before, and so is every directory when no
 * watch can be had (no libc, too many inotify instances or watches).
 */
import { closeSync, openSync, readSync, statfsSync } from "node:fs";
import { inotifyAdd, inotifyInit, pathOf, pollNow } from "../../core/statx.ts";

/** IN_ATTRIB, IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF */
const CHANGES = 0x4 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800;
/** IN_ONLYDIR | IN_DONT_FOLLOW: a watch only on the directory that is there, never through a link put in its place */
const ON_DIR_ONLY = 0x01000000 | 0x02000000;

/**
 * The file systems whose every change is the kernel's own: ext2/3/4, XFS,
 * Btrfs, tmpfs, ramfs, F2FS, ZFS, bcachefs.
 */
const LOCAL_FS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0xf2f52010, 0x2fc12fc1, 0xca451a4e]);

/** POLLIN for the inotify queue, POLLPRI for the mount table (which says POLLIN always) */
const POLLIN = 1;
const POLLPRI = 2;

/**
 * One inotify queue and the mount table's descriptor for the whole process, polled together. Every memo's
 * directories are watched on the one queue, and what any poll finds told starts a new generation: a memo holds
 * while the generation is the one it took before its looks, whichever memo's poll saw the change.
 */
export class PlacesWatch {
  /** two struct pollfd: the inotify queue, then the mount table */
  private readonly polled = new Uint8Array(16);
  /** each device's answer to whether its file system is local */
  private readonly local = new Map<number, boolean>();
  private readonly events = Buffer.allocUnsafe(4096);
  private generation = 0;

  private constructor(
    private readonly inotify: number,
    mounts: number,
  ) {
    const view = new DataView(this.polled.buffer);
    view.setInt32(0, inotify, true);
    view.setInt16(4, POLLIN, true);
    view.setInt32(8, mounts, true);
    view.setInt16(12, POLLPRI, true);
  }

  /** The process's watch, opened at the first ask; undefined where none can be had (see above). Refuses nothing. */
  static get(): PlacesWatch | undefined {
    if (theWatch === undefined) theWatch = PlacesWatch.open() ?? null;
    return theWatch ?? undefined;
  }

  private static open(): PlacesWatch | undefined {
    if (process.platform !== "linux") return undefined;
    const inotify = inotifyInit();
    if (inotify < 0) return undefined;
    let mounts: number;
    try {
      mounts = openSync("/proc/self/mountinfo", "r");
    } catch {
      closeQuietly(inotify);
      return undefined;
    }
    const watch = new PlacesWatch(inotify, mounts);
    if (pollNow(watch.polled) < 0) {
      closeQuietly(inotify);
      closeQuietly(mounts);
      return undefined;
    }
    return watch;
  }

  /**
   * The generation now: one poll, and a new generation when anything was told since the last (what was queued is
   * read and let go). A memo takes it before its looks; any change after that is told by a later one. The mount
   * table tells a change once, at the poll that sees it. Refuses nothing.
   */
  now(): number {
    if (pollNow(this.polled) === 0) return this.generation;
    this.generation++;
    for (;;) {
      try {
        if (readSync(this.inotify, this.events) <= 0) break;
      } catch {
        break; // EAGAIN: nothing more queued
      }
    }
    return this.generation;
  }

  /**
   * Watches the directory at `dir` (a cPath) of device `dev`: false when it cannot be watched, or its file system
   * can change with no word to this one. A directory already watched is watched once. Refuses nothing.
   */
  add(dir: Uint8Array, dev: number): boolean {
    let local = this.local.get(dev);
    if (local === undefined) {
      try {
        local = LOCAL_FS.has(Number(statfsSync(pathOf(dir)).type));
      } catch {
        return false;
      }
      this.local.set(dev, local);
    }
    return local && inotifyAdd(this.inotify, dir, CHANGES | ON_DIR_ONLY) >= 0;
  }
}

/** The process's watch once asked for; null where none can be had. */
let theWatch: PlacesWatch | null | undefined;

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
