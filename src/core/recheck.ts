/**
 * How often a running server looks at config.toml and policy.toml again: at
 * most once every RECHECK_MS. An edit holds from the first call that starts
 * RECHECK_MS after it was written, and calls in between cost no syscall for
 * it. The bound is said in the README.
 */
import { statSync } from "node:fs";

/** The longest a server goes on from what it last saw of its config and policy files. */
export const RECHECK_MS = 100;

/** What a stat of the file gave: enough to tell an edit or a replaced file. */
export interface FileSeen {
  mtimeMs: number;
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
        this.seen = st && { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
      } catch (err) {
        this.seen = err as Error;
      }
    }
    if (this.seen instanceof Error) throw this.seen;
    return this.seen;
  }
}

/** Whether two looks at a file saw the same file, unedited. */
export function sameFile(a: FileSeen, b: FileSeen): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
}
