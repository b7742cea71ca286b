/**
 * How often a running server looks at config.toml and policy.toml again: at
 * most once every RECHECK_MS. An edit holds from the first call that starts
 * RECHECK_MS after it was written, and calls in between cost no syscall for
 * it. The bound is said in the README.
 */
import { statSync } from "node:fs";

/** The longest a server goes on from what it last saw of its config and policy files. */
export const RECHECK_MS = 100;

/**
 * What a stat of the file gave: enough to tell an edit or a replaced file.
 * The ctime too, since an mtime can be set back (`cp -p`, `rsync -t`, `tar x`,
 * `touch -r`) and an inode freed by a rename made again: only the kernel sets
 * a ctime, to the time of each write, rename or chmod.
 */
export interface FileSeen {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
}

/** A file's stat, taken again only once RECHECK_MS have passed on a monotonic clock. */
export class Recheck {
  private at = Number.NEGATIVE_INFINITY;
  private seen: FileSeen | undefined | Error;

  constructor(
    readonly file: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The file as last seen (undefined: there is none), looked at again when
   * the last look is RECHECK_MS old. Throws what that stat threw (a file it
   * may not search, a name too long) until a later look succeeds.
   */
  stat(): FileSeen | undefined {
    const now = this.now();
    if (now - this.at >= RECHECK_MS) {
      this.at = now;
      try {
        const st = statSync(this.file, { throwIfNoEntry: false });
        this.seen = st && { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, ino: st.ino };
      } catch (err) {
        this.seen = err as Error;
      }
    }
    if (this.seen instanceof Error) throw this.seen;
    return this.seen;
  }
}

/** Whether two looks at a file saw the same file, unedited. */
function sameFile(a: FileSeen, b: FileSeen): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.ino === b.ino;
}

/** The look at a file its contents were read after, and whether an edit made after the read could look like none. */
export interface ReadLook {
  seen: FileSeen;
  settled: boolean;
}

/**
 * The look `seen` a file was read after, at `readAt` (ms, the wall clock its
 * times are on): settled when its ctime lies far enough before then that a
 * later edit cannot share it (see settledBefore).
 */
export function readLook(seen: FileSeen, readAt = Date.now()): ReadLook {
  return { seen, settled: settledBefore(seen.ctimeMs, readAt) };
}

/**
 * Whether what was read of a file still stands by the look `now`: no look was
 * taken since, or one that shows the file unedited since a settled read. A
 * second edit of the same size within its ctime's tick (its second, on some
 * file systems) would look like none, so an unsettled read is read again.
 */
export function stillAsRead(read: ReadLook, now: FileSeen): boolean {
  return now === read.seen || (read.settled && sameFile(read.seen, now));
}

/**
 * How long before a time a file's or directory's last change must lie for a
 * change after that time to be sure to have a later mtime or ctime: ten times
 * the longest clock tick a kernel is built with (10 ms at 100 Hz), by which
 * such a time can lag the change.
 */
const SETTLED_MS = 100;
/**
 * How much further back a time of a whole second must lie: a file system that
 * keeps times to the second (ext3, ext4 made with small inodes, HFS+), or to
 * two as FAT does, gives a change made late in one the time of its start.
 */
const WHOLE_SECONDS_MS = 2000;

/**
 * Whether a change made at `changedMs` (an mtime or ctime) lies far enough
 * before `at` (ms on the wall clock) that any change made after `at` has
 * another time. A time with no fraction of a second may be one kept to the
 * second, and must lie further back.
 */
export function settledBefore(changedMs: number, at: number): boolean {
  const lag = changedMs % 1000 === 0 ? WHOLE_SECONDS_MS + SETTLED_MS : SETTLED_MS;
  return changedMs < at - lag;
}
