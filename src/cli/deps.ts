/**
 * The real dependencies, as the CLI and the servers it starts use them: the
 * system clock, the host's own files, the stores in rta's data and config
 * dirs. The grant store is opened on first use.
 */
import { lstatSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { CONFIG_FILE, ConfigSource, usable } from "../core/config.ts";
import { type Clock, once, realHost, systemClock } from "../core/deps.ts";
import { dirs, platformDirs, RECORD_FILE } from "../core/dirs.ts";
import { Redactor } from "../core/redact.ts";
import { type Deps, realTools } from "../gate/deps.ts";
import { GATE_STORE_FILE, GateStore, type StoreTables } from "../gate/gateStore.ts";
import { gitGlobalConfig } from "../gate/paths/gitDirs.ts";
import { kubeConfigPlaces } from "../gate/paths/kubeConfig.ts";
import { PathGate } from "../gate/paths/pathGate.ts";
import { agentRules } from "../gate/paths/rules.ts";
import { POLICY_FILE, PolicySource } from "../gate/policy.ts";
import { registrationFiles } from "../mcp/install.ts";
import { MemoryRecord, type RecordSink } from "../record/append.ts";
import { RECORD_KEY_FILE } from "../record/key.ts";
import { namedStore, postgresStore } from "./storeFlag.ts";

/** What a process's dependencies are made with beside its environment; each has the plain process's default. */
export interface ProcessDepsOptions {
  /** where agent calls are written (default: kept in memory, as a person's calls are not recorded) */
  record?: RecordSink;
  /** the roots given on the command line, ahead of the ones config.toml names */
  roots?: string[];
  /** the clock every stage reads (default: the system's) */
  clock?: Clock;
  /** where config.toml is read from (default: a source of its own on the config dir's) */
  config?: ConfigSource;
}

/**
 * The gate's store: gate.db in the data dir, or, when `shared` (--store, RTA_STORE or config's `store`) names
 * one, the PostgreSQL store a server's replicas share, with the record's checkpoint still in the data dir's gate.db.
 * Refuses (core.store.unavailable) a shared store that is no postgres:// URL, without repeating it (it may carry
 * a password), and one it cannot reach.
 */
export function openStore(shared: string | undefined, local: () => GateStore): StoreTables {
  if (!shared) return local();
  const url = postgresStore(shared);
  // loaded only for a shared store: a process on the data dir's gate.db does not evaluate the PostgreSQL modules
  const { PgGateStore } = require("../gate/store/pgStore.ts") as typeof import("../gate/store/pgStore.ts");
  return new PgGateStore(url, local);
}

/**
 * Agents' path arguments are confined to the roots given (`--root`) and the
 * ones config.toml names; with neither, the current directory. rta's own dirs
 * (and the platform's, which an rta started without RTA_DATA_DIR and
 * RTA_CONFIG_DIR would use), the files in them that are links, its own
 * executable, the operator channel's run dirs (runtimeRunDirs), the client registrations that start it (in the home and in the
 * directory it was started in), the identity file RTA_KV_IDENTITY names,
 * git's config beside the home and kubectl's (kubeConfig.ts) are withheld
 * from them, and config says whether hard-linked files may be opened.
 */
export function processDeps(
  env: Record<string, string | undefined>,
  { record = new MemoryRecord(), roots: given = [], clock = systemClock, config: source }: ProcessDepsOptions = {},
): Deps {
  const d = dirs(env);
  const config = source ?? ConfigSource.inConfigDir(d.config);
  const settings = usable(config.current());
  const roots = [...given, ...(settings?.roots ?? []).filter((r) => !given.includes(r))];
  return {
    clock,
    host: realHost,
    record,
    gate: once(() => openStore(namedStore(env, config), () => new GateStore(join(d.data, GATE_STORE_FILE)))),
    policy: PolicySource.inConfigDir(d.config),
    config,
    dirs: d,
    roots: new PathGate(
      roots.length > 0 ? roots : [process.cwd()],
      agentRules(
        {
          ...d,
          identity: env.RTA_KV_IDENTITY,
          also: [
            ...gitGlobalConfig(env),
            ...kubeConfigPlaces(env),
            ...platformDirs(),
            ...ownExecutable(),
            ...runtimeRunDirs(env),
            ...linkedOwnFiles(d),
            ...registrationFiles(env.HOME || homedir(), [process.cwd(), ...roots], env.CODEX_HOME),
          ],
        },
        settings?.hardlinks === true,
      ),
    ),
    redactor: redactorFor(d, env.RTA_KV_IDENTITY),
    ...realTools,
  };
}

/**
 * The operator channel's run dirs outside the data dir: `$XDG_RUNTIME_DIR/rta`,
 * and the platform's `/run/user/<uid>/rta` an rta started with that variable
 * (the operator's own shell, a waiting `rta grant allow`) would use though this
 * process was started without it. A socket there is a person's. Refuses nothing.
 */
function runtimeRunDirs(env: Record<string, string | undefined>): string[] {
  // withheld whatever RTA_DATA_DIR says here: a shell of the operator's without it uses this one
  const found = env.XDG_RUNTIME_DIR?.startsWith("/") ? [join(env.XDG_RUNTIME_DIR, "rta")] : [];
  const uid = process.getuid?.();
  if (process.platform === "linux" && uid !== undefined) found.push(`/run/user/${uid}/rta`);
  return [...new Set(found)];
}

/**
 * rta's own files that are links, each to be followed to where it leads: a
 * team keeps policy.toml in a repository and links it into the config dir, a
 * person links config.toml from a dotfiles checkout. The dirs are rta's
 * places, but what a link in one leads to lies elsewhere, and an agent that
 * could write it would set the ceiling, the config, the grants or the
 * record's key. Asked as the server starts: a file made a link while it runs
 * is guarded from the next start. Refuses nothing.
 */
function linkedOwnFiles(d: { data: string; config: string }): string[] {
  const files = [
    join(d.config, CONFIG_FILE),
    join(d.config, POLICY_FILE),
    ...["", "-wal", "-shm"].map((suffix) => join(d.data, `${GATE_STORE_FILE}${suffix}`)),
    join(d.data, RECORD_FILE),
    join(d.data, RECORD_KEY_FILE),
  ];
  return files.filter((file) => {
    try {
      return lstatSync(file).isSymbolicLink();
    } catch {
      return false; // not there (yet): inside its dir, which is guarded
    }
  });
}

/**
 * rta's own executable, by its real path and by the path it was started by (a
 * link on PATH, a relative ./dist/rta), as places the gate withholds: the
 * next start runs whatever is there, so an agent that could overwrite it, or
 * move a script into its place (its mode kept), would run as the operator.
 * Started by its bare name, the same name in each PATH dir ahead of the one
 * it was found in is withheld too, since an `rta` put there would be found
 * first.
 */
function ownExecutable(argv0 = process.argv0, execPath = process.execPath, path = process.env.PATH ?? ""): string[] {
  if (argv0.includes("/")) return [execPath, resolve(argv0)];
  const found = Bun.which(argv0, { PATH: path });
  const ahead: string[] = [];
  for (const dir of path.split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, argv0);
    ahead.push(candidate);
    if (candidate === found) break;
  }
  return [execPath, ...ahead];
}

/**
 * rta's places, each as given and as its real path, so either spelling is
 * taken out. `asTyped` are the roots as the command line spelled them
 * (`/srv/./x`, `/srv/x/`), in the order of `roots`: the server's own command
 * line shows them so, and a process listing would show them to an agent.
 */
export function redactorFor(
  d: { data: string; config: string },
  identity?: string,
  roots: string[] = [],
  asTyped: string[] = [],
): Redactor {
  const spellings = (p: string) => {
    try {
      return [...new Set([resolve(p), realpathSync(p)])];
    } catch {
      return [resolve(p)];
    }
  };
  const typed = (i: number) => {
    const raw = asTyped[i];
    // only an absolute spelling: a relative one (".", "proj") names no place on its own
    return raw !== undefined && isAbsolute(raw) ? [raw] : [];
  };
  return new Redactor({
    data: spellings(d.data),
    config: spellings(d.config),
    identity: identity ? spellings(identity) : [],
    roots: roots.map((r, i) => [...new Set([...spellings(r), ...typed(i)])].filter((s) => s !== "/")),
  });
}
