/**
 * The operator's config: `config.toml` in the config dir, read with Bun's TOML parser.
 *   roots = ["/srv/projects"]              # where agents' path arguments may point
 *   [paths]
 *   hardlinks = false                      # let files with several hard links be opened
 *   [defaults."proc.list"]
 *   limit = 20                             # an input's value when a call leaves it out
 *   [connections.work-notes]
 *   area = "note"                          # the capabilities it serves
 *   folder = "/home/me/work-notes"         # values for their operator-only inputs
 *   [eol]
 *   watch = ["nodejs", "redis@7.2"]        # what eol.watch compares with what is installed
 *   [profiles.work]
 *   area = "note"
 *   connection = "work-notes"              # a profile may aim at a connection,
 *   set = { limit = 10 }                   # set inputs,
 *   only = { id = ["plan-1", "plan-2"] }   # and fence them to a list
 *   [limits]
 *   calls_per_minute = 600                 # how often an agent may call (core/configLimits.ts)
 *
 * A file that does not read refuses, naming what is wrong and where; nothing
 * here prints.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLimits, type RateLimits } from "./configLimits.ts";
import { confirmOf, eolWatchOf, hardlinksOf, storeOf, unreadableWhy } from "./configParts.ts";
import { parseUpstreams, type UpstreamConfig } from "./configUpstreams.ts";
import { RtaError } from "./errors.ts";
import { type FileSeen, type ReadLook, Recheck, readLook, stillAsRead } from "./recheck.ts";
import type { Scalar } from "./result.ts";

export const CONFIG_FILE = "config.toml";

export interface Connection {
  area: string;
  /** values for operator-only inputs of the area's capabilities */
  values: Record<string, Scalar>;
}

export interface Profile {
  area: string;
  connection?: string;
  set: Record<string, Scalar>;
  only: Record<string, Scalar[]>;
}

export interface Config {
  roots: string[];
  hardlinks: boolean;
  /** capability dotted name -> input -> value */
  defaults: Record<string, Record<string, Scalar>>;
  connections: Record<string, Connection>;
  profiles: Record<string, Profile>;
  /** `[upstreams.NAME]`: MCP servers offered behind the gate (core/configUpstreams.ts) */
  upstreams?: Record<string, UpstreamConfig>;
  /** `confirm = [...]`: capabilities or areas this operator accepts live, call by call, beside the policy's */
  confirm?: string[];
  /** `[limits]`: how often an agent may call each capability (core/configLimits.ts); undefined: never limited */
  limits?: RateLimits;
  /** `store = "postgres://…"`: the shared store of a server's replicas (core/configParts.ts); unset: gate.db */
  store?: string;
}

export const EMPTY_CONFIG: Config = { roots: [], hardlinks: false, defaults: {}, connections: {}, profiles: {} };

function bad(where: string, why: string): RtaError {
  return new RtaError(
    "core.config.invalid",
    `${CONFIG_FILE}: ${where} ${why}`,
    `fix ${CONFIG_FILE} in rta's config dir; \`rta config check\` says what is wrong`,
  );
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is Scalar => ["string", "number", "boolean"].includes(typeof v);
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The problems that are an upstream entry's: each leaves only that entry out. */
const upstreamProblems = new WeakSet<RtaError>();

/** Reads config text; refuses (core.config.invalid) the first thing it cannot take, naming the key. */
export function parseConfig(text: string): Config {
  const { config, problems } = readConfig(text);
  // a bad upstream entry leaves the rest standing: it is said by `rta config check` and `rta doctor`
  const first = problems.find((p) => !upstreamProblems.has(p));
  if (first) throw first;
  return config;
}

/** The problems of config text that are an upstream entry's (each left that entry out), as `rta config check` says them. */
export function upstreamEntryProblems(text: string): RtaError[] {
  return readConfig(text).problems.filter((p) => upstreamProblems.has(p));
}

/**
 * Reads config text and says every problem in it, each a core.config.invalid
 * naming the key: what reads is kept, what does not is left out. TOML that
 * does not parse is one problem (the parser stops at the first). Refuses
 * nothing itself.
 */
export function readConfig(text: string): { config: Config; problems: RtaError[] } {
  const config: Config = { roots: [], hardlinks: false, defaults: {}, connections: {}, profiles: {} };
  const problems: RtaError[] = [];
  const problem = (where: string, why: string) => problems.push(bad(where, why));
  let eolWatch: string | undefined;
  let raw: unknown;
  try {
    raw = Bun.TOML.parse(text);
  } catch (err) {
    problem("is not TOML:", (err as Error).message);
    return { config, problems };
  }
  if (!isTable(raw)) {
    problem("is not", "a table");
    return { config, problems };
  }
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case "roots":
        if (!Array.isArray(value) || !value.every((r) => typeof r === "string" && r.startsWith("/")))
          problem("roots", "must be a list of absolute paths");
        else config.roots = value as string[];
        break;
      case "paths": {
        const hardlinks = hardlinksOf(value, problem);
        if (hardlinks !== undefined) config.hardlinks = hardlinks;
        break;
      }
      case "defaults":
        if (!isTable(value)) {
          problem("[defaults]", "must be a table of capabilities");
          break;
        }
        for (const [cap, inputs] of Object.entries(value)) {
          if (!isTable(inputs) || !Object.values(inputs).every(isScalar))
            problem(`[defaults."${cap}"]`, "must map inputs to values");
          else config.defaults[cap] = inputs as Record<string, Scalar>;
        }
        break;
      case "connections":
        if (!isTable(value)) {
          problem("[connections]", "must be a table of named connections");
          break;
        }
        for (const [name, c] of Object.entries(value)) {
          if (!NAME.test(name)) problem(`[connections.${name}]`, "is not a name");
          else if (!isTable(c) || typeof c.area !== "string")
            problem(`[connections.${name}]`, "needs area = the capabilities it serves");
          else {
            const { area, ...values } = c;
            if (!Object.values(values).every(isScalar)) problem(`[connections.${name}]`, "must give plain values");
            else config.connections[name] = { area, values: values as Record<string, Scalar> };
          }
        }
        break;
      case "profiles":
        if (!isTable(value)) {
          problem("[profiles]", "must be a table of named profiles");
          break;
        }
        for (const [name, p] of Object.entries(value)) {
          const profile = parseProfile(name, p, problem);
          if (profile) config.profiles[name] = profile;
        }
        break;
      case "confirm":
        config.confirm = confirmOf(value, problem);
        break;
      case "store":
        config.store = storeOf(value, problem);
        break;
      case "upstreams":
        config.upstreams = parseUpstreams(value, (where, why) => {
          const err = bad(where, why);
          upstreamProblems.add(err);
          problems.push(err);
        });
        break;
      case "eol": // `watch = [...]` is eol.watch's operator-only list, as [defaults."eol.watch"] watch would set it
        eolWatch = eolWatchOf(value, problem);
        break;
      case "limits":
        config.limits = parseLimits(value, problem);
        break;
      default:
        problem(
          `has no setting ${JSON.stringify(key)}`,
          "(roots, paths, defaults, connections, profiles, upstreams, eol, confirm, limits and store are known)",
        );
    }
  }
  if (eolWatch !== undefined) config.defaults["eol.watch"] = { watch: eolWatch, ...config.defaults["eol.watch"] };
  for (const [name, p] of Object.entries(config.profiles)) {
    if (p.connection !== undefined && !config.connections[p.connection]) {
      problem(`[profiles.${name}]`, `names connection ${p.connection}, which is not in [connections]`);
      delete config.profiles[name];
    }
  }
  return { config, problems };
}

/** One profile, or undefined when something in it does not read; each such thing is told to `problem`. */
function parseProfile(name: string, p: unknown, problem: (where: string, why: string) => void): Profile | undefined {
  const where = `[profiles.${name}]`;
  if (!NAME.test(name)) return void problem(where, "is not a name");
  if (!isTable(p) || typeof p.area !== "string") return void problem(where, "needs area = the capabilities it is for");
  let fine = true;
  const no = (at: string, why: string) => {
    problem(at, why);
    fine = false;
  };
  for (const key of Object.keys(p))
    if (!["area", "connection", "set", "only"].includes(key)) no(where, `has no setting ${JSON.stringify(key)}`);
  if (p.connection !== undefined && typeof p.connection !== "string")
    no(`${where} connection`, "must be a connection's name");
  const set = p.set ?? {};
  if (!isTable(set) || !Object.values(set).every(isScalar)) no(`${where} set`, "must map inputs to values");
  const only = p.only ?? {};
  if (!isTable(only) || !Object.values(only).every((v) => Array.isArray(v) && v.every(isScalar)))
    no(`${where} only`, "must map inputs to lists of values");
  if (!fine) return undefined;
  const profile: Profile = { area: p.area, set: set as Record<string, Scalar>, only: only as Record<string, Scalar[]> };
  if (typeof p.connection === "string") profile.connection = p.connection;
  return profile;
}

export type ConfigState =
  | { kind: "ok"; config: Config }
  /** never read: what a profile could change is refused until it reads; `text` as read, for its confirm list */
  | { kind: "unreadable"; error: RtaError; text?: string }
  /** read once, failing now: answered from what was read */
  | { kind: "stale"; config: Config; error: RtaError };

/**
 * The config as it stands, read again only when the file changes, and looked
 * at no more than once every RECHECK_MS (core/recheck.ts): an edit holds from
 * the first call that starts that long after it. A missing file is the empty
 * config.
 */
export class ConfigSource {
  private cached: { read: ReadLook; state: ConfigState } | undefined;
  private lastGood: Config | undefined;
  private readonly look: Recheck;

  constructor(
    readonly file: string,
    now?: () => number,
  ) {
    this.look = new Recheck(file, now);
  }

  static inConfigDir(configDir: string): ConfigSource {
    return new ConfigSource(join(configDir, CONFIG_FILE));
  }

  current(): ConfigState {
    let st: FileSeen | undefined;
    try {
      // asked on every call, and most operators have no config.toml: its absence is an answer, not a thrown error
      st = this.look.stat();
    } catch (err) {
      return this.settle(this.failed(cannotRead(err)));
    }
    if (st === undefined) return this.settle({ kind: "ok", config: EMPTY_CONFIG });
    if (this.cached && stillAsRead(this.cached.read, st)) return this.cached.state;
    let state: ConfigState;
    let text: string | undefined;
    const readAt = Date.now();
    try {
      text = readFileSync(this.file, "utf8");
      state = { kind: "ok", config: parseConfig(text) };
    } catch (err) {
      state = this.failed(err instanceof RtaError ? err : cannotRead(err), text);
    }
    this.cached = { read: readLook(st, readAt), state };
    return this.settle(state);
  }

  private failed(error: RtaError, text?: string): ConfigState {
    return this.lastGood ? { kind: "stale", config: this.lastGood, error } : { kind: "unreadable", error, text };
  }

  private settle(state: ConfigState): ConfigState {
    if (state.kind === "ok") this.lastGood = state.config;
    return state;
  }
}

/** A config file the OS would not read, said in words, not an errno or the path again. */
function cannotRead(err: unknown): RtaError {
  return bad("cannot be read:", unreadableWhy(err));
}

/** The config to act on: what reads now, else what read last; undefined while it has never read. */
export function usable(state: ConfigState): Config | undefined {
  return state.kind === "unreadable" ? undefined : state.config;
}
