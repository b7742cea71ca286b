/** Opened descriptors named as paths, through the kernel's `/proc/self/fd`, so a lookup starts at what is open; and what such a directory holds. */
import { lstatSync } from "node:fs";

/** Linux's O_PATH: a descriptor that names a directory without the right to list it, enough to walk through. */
export const O_PATH = 0o10000000;

/** `/proc/self/fd/<fd>/<name>`: a name looked up inside an opened directory. */
export function inFd(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** Whether a directory (by a path that names it, e.g. `inFd(fd)`) holds an entry of this name, not followed if it is a link. */
export function holds(dir: string, name: string): boolean {
  // Most names asked for are not there: an answer, not an error to build and throw.
  try {
    return lstatSync(`${dir}/${name}`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
