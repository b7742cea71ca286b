/**
 * The way to a kept root (roots.ts): the directories on its real path above it, looked at when its real path is read
 * and again at each call it is served, so that the real path may be taken as read while none of them changed, and
 * the real path of an entry opened in the root told without asking the kernel (open.ts).
 */
import { settledBefore } from "../../core/recheck.ts";
import { cPath, look, stillAt } from "./look.ts";
import type { LookedDir } from "./placesMemo.ts";

/**
 * The directories above `real` (a root's real path, just read), each as a look by its path finds it now; undefined
 * when one cannot be looked at, or changed too near `openedAt` for a later change to be sure to move its ctime.
 */
export function wayTo(real: string, openedAt: number): WayDir[] | undefined {
  const way: WayDir[] = [];
  if (real === "/") return way; // nothing above it
  for (let end = real.lastIndexOf("/"); end >= 0; end = end === 0 ? -1 : real.lastIndexOf("/", end - 1)) {
    const name = end === 0 ? "/" : real.slice(0, end);
    const path = cPath(name);
    const now = look(path);
    if (now === undefined || !settledBefore(now.ctimeMs, openedAt)) return undefined;
    way.push({ name, path, dev: now.dev, ino: now.ino, ctimeMs: now.ctimeMs });
  }
  return way;
}

/** Whether each directory of a kept root's way is still the one seen, unchanged (true when it has none). */
export function wayHolds(way: readonly WayDir[] | undefined): boolean {
  if (way === undefined) return true;
  for (const w of way) if (!stillAt(w.path, w.dev, w.ino, w.ctimeMs)) return false;
  return true;
}

/** A directory of a kept root's way, with its path as statx takes it. */
export interface WayDir extends LookedDir {
  path: Uint8Array;
}

/**
 * The real path of `name`, an entry opened without following in a root whose real path `rootReal` holds in this
 * open (roots.ts OpenedRoot's realNow): undefined past what the kernel could name, for it to be asked. Refuses nothing.
 */
export function realEntry(rootReal: string, name: string): string | undefined {
  const real = rootReal === "/" ? `/${name}` : `${rootReal}/${name}`;
  return real.length < 1024 || Buffer.byteLength(real) < 4096 ? real : undefined;
}
