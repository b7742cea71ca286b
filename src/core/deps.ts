/**
 * What the host gives every part of rta, as values a test can replace: the
 * clock, and where the host's own figures are read from (a fixture /proc).
 * The dependencies of a whole process are gathered in gate/deps.ts.
 */

export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
}

/** Where the host's own figures are read from; tests point these at fixtures. */
export interface HostFiles {
  /** the proc file system, normally /proc */
  procRoot: string;
  /** the user database, normally /etc/passwd */
  passwdFile: string;
  /** the distribution's description, normally /etc/os-release */
  osReleaseFile: string;
}

/** A value made on first use and kept. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

export const systemClock: Clock = { now: () => Date.now() };

export const realHost: HostFiles = {
  procRoot: "/proc",
  passwdFile: "/etc/passwd",
  osReleaseFile: "/etc/os-release",
};
