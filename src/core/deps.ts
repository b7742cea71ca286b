/**
 * Dependencies come in as one value, so every stage and capability can be
 * tested with fakes: a fixed clock, a fixture /proc, a record in a temp dir.
 */
import type { RecordSink } from "../record/append.ts";

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

export interface Deps {
  clock: Clock;
  host: HostFiles;
  /** where agent calls are written; a person's calls are not recorded */
  record: RecordSink;
}

export const systemClock: Clock = { now: () => Date.now() };

export const realHost: HostFiles = {
  procRoot: "/proc",
  passwdFile: "/etc/passwd",
  osReleaseFile: "/etc/os-release",
};
