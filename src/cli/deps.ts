/**
 * The real dependencies, as the CLI and the servers it starts use them: the
 * system clock, the host's own files, the stores in rta's data and config
 * dirs. The grant store is opened on first use.
 */
import { join } from "node:path";
import { type Deps, once, realHost, systemClock } from "../core/deps.ts";
import { dirs } from "../core/dirs.ts";
import { GATE_STORE_FILE, GateStore } from "../gate/gateStore.ts";
import { agentRules, PathGate } from "../gate/pathGate.ts";
import { PolicySource } from "../gate/policy.ts";
import { MemoryRecord, type RecordSink } from "../record/append.ts";

/**
 * `roots` are the directories agents' path arguments are confined to (the
 * current directory when none is given); rta's own dirs are withheld from them.
 */
export function processDeps(
  env: Record<string, string | undefined>,
  record: RecordSink = new MemoryRecord(),
  roots: string[] = [process.cwd()],
): Deps {
  const d = dirs(env);
  return {
    clock: systemClock,
    host: realHost,
    record,
    gate: once(() => new GateStore(join(d.data, GATE_STORE_FILE))),
    policy: PolicySource.inConfigDir(d.config),
    dirs: d,
    roots: new PathGate(roots, agentRules(d)),
  };
}
