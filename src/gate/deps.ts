/**
 * Dependencies come in as one value, so every stage can be tested with fakes:
 * a fixed clock, a fixture /proc, a record in a temp dir. A capability never
 * sees this value: it is handed what its call may use (core/access.ts).
 */
import type { NetAccess, Spawn } from "../core/access.ts";
import type { ConfigSource } from "../core/config.ts";
import type { Clock, HostFiles } from "../core/deps.ts";
import type { Dirs } from "../core/dirs.ts";
import type { Redactor } from "../core/redact.ts";
import type { RecordSink } from "../record/append.ts";
import type { StoreTables } from "./gateStore.ts";
import { CallNet } from "./net/callNet.ts";
import type { Reach } from "./net/destination.ts";
import type { PathGate } from "./paths/pathGate.ts";
import type { PolicySource } from "./policy.ts";
import { spawnFor } from "./spawn.ts";

export interface Deps {
  clock: Clock;
  host: HostFiles;
  /** where agent calls are written; a person's calls are not recorded */
  record: RecordSink;
  /** the grant and lock store, opened on first use: a person's own calls never touch it */
  gate: () => StoreTables;
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
  /** the network one call is handed, held to what its caller and grant may reach (a test hands a fake) */
  net: (reach: Reach, signal: AbortSignal) => NetAccess;
  /** the system tools one call may run, bound to its abort signal (a test hands a fake) */
  spawn: (signal: AbortSignal) => Spawn;
}

/** The real network and tools, as a process's Deps holds them. */
export const realTools: Pick<Deps, "net" | "spawn"> = {
  net: (reach, signal) => new CallNet(reach, signal),
  spawn: spawnFor,
};
