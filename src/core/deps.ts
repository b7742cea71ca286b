/**
 * Dependencies come in as one value, so every stage and capability can be
 * tested with fakes: a fixed clock, a fixture /proc, a record in a temp dir.
 */

import type { GateStore } from "../gate/gateStore.ts";
import type { PathGate } from "../gate/pathGate.ts";
import type { PolicySource } from "../gate/policy.ts";
import type { RecordSink } from "../record/append.ts";
import type { ConfigSource } from "./config.ts";
import type { Dirs } from "./dirs.ts";
import type { Redactor } from "./redact.ts";

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
  /** the grant and lock store, opened on first use: a person's own calls never touch it */
  gate: () => GateStore;
  /** the team ceiling, read again when its file changes */
  policy: PolicySource;
  /** the operator's config.toml, read again when it changes */
  config: ConfigSource;
  /** rta's own data and config dirs */
  dirs: Dirs;
  /** the path gate for agents' calls: the server's roots, rta's own dirs withheld */
  roots: PathGate;
  /** what takes rta's own places and secrets out of what an agent is told */
  redactor: Redactor;
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
