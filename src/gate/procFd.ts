/** Opened descriptors named as paths, through the kernel's `/proc/self/fd`, so a lookup starts at what is open. */

/** Linux's O_PATH: a descriptor that names a directory without the right to list it, enough to walk through. */
export const O_PATH = 0o10000000;

/** `/proc/self/fd/<fd>/<name>`: a name looked up inside an opened directory. */
export function inFd(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}
