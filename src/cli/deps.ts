/**
 * The real dependencies, as the CLI and the servers it starts use them: the
 * system clock, the host's own files, the stores in rta's data and config
 * dirs. The grant store is opened on first use.
 */
import { join } from "node:path";
import { ConfigSource, usable } from "../core/config.ts";
import { type Deps, once, realHost, systemClock } from "../core/deps.ts";
import { dirs } from "../core/dirs.ts";
import { GATE_STORE_FILE, GateStore } from "../gate/gateStore.ts";
import { agentRules, PathGate } from "../gate/pathGate.ts";
import { PolicySource } from "../gate/policy.ts";
import { MemoryRecord, type RecordSink } from "../record/append.ts";

/**
 * Agents' path arguments are confined to the roots given (`--root`) and the
 * ones config.toml names; with neither, the current directory. rta's own dirs
 * are withheld from them, and config says whether hard-linked files may be
 * opened.
 */
export function processDeps(
  env: Record<string, string | undefined>,
  record: RecordSink = new MemoryRecord(),
  given: string[] = [],
): Deps {
  const d = dirs(env);
  const config = ConfigSource.inConfigDir(d.config);
  const settings = usable(config.current());
  const roots = [...given, ...(settings?.roots ?? []).filter((r) => !given.includes(r))];
  return {
    clock: systemClock,
    host: realHost,
    record,
    gate: once(() => new GateStore(join(d.data, GATE_STORE_FILE))),
    policy: PolicySource.inConfigDir(d.config),
    config,
    dirs: d,
    roots: new PathGate(roots.length > 0 ? roots : [process.cwd()], agentRules(d, settings?.hardlinks === true)),
  };
}
