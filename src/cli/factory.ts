/**
 * What every command is handed, after gh's cmdutil.Factory: the terminal (or
 * buffers, in a test), the environment it carries, a clock, the catalogue,
 * the process's dependencies, and the exit status the command chose. main()
 * builds the real one; a test builds one over buffers, a fixed clock and temp
 * dirs, and runs a command line in-process. Nothing is made before a command
 * asks for it: `rta mcp token list` never builds the catalogue, `rta explain`
 * never opens a store. It refuses nothing itself: what it makes refuses in its
 * own words when asked.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../capabilities/builtinCatalogue.ts";
import { type Catalogue, namesTaken } from "../core/catalogue.ts";
import { ConfigSource, usable } from "../core/config.ts";
import { type Clock, once, systemClock } from "../core/deps.ts";
import { dirs } from "../core/dirs.ts";
import { Exit } from "../core/errors.ts";
import type { Deps } from "../gate/deps.ts";
import type { HostOptions, PluginHosts } from "../plugins/host.ts";
import type { LoadedPlugin } from "../plugins/load.ts";
import { pluginsDir } from "../plugins/registry.ts";
import type { RecordSink } from "../record/append.ts";
import type { LoadedUpstream, Upstreams } from "../upstreams/load.ts";
import type { Selections } from "../upstreams/selections.ts";
import { type Io, processIo } from "./io.ts";

export interface Cli {
  /** the terminal and the environment (io.env), or buffers and a given environment in a test */
  io: Io;
  /** the clock every command and stage reads */
  clock: Clock;
  /** the capabilities, made on first use */
  readonly catalogue: Catalogue;
  /** a person's dependencies: the stores in rta's dirs and a record that keeps nothing; made on first use and kept */
  deps(): Deps;
  /**
   * a server's dependencies: its own record, the roots its command line gave ahead of config's, and config.toml
   * read through `config` when the server reads it already
   */
  serverDeps(record: RecordSink, roots: string[], config?: ConfigSource): Deps;
  /** the exit status the command chose */
  status: number;
  /**
   * Reads the installed plugins (describing again one whose binary changed,
   * where `describeChanged` says so of it), so the catalogue made after it offers
   * their capabilities; never throws.
   */
  loadPlugins(describeChanged?: boolean | ((name: string) => boolean)): Promise<void>;
  /** the installed plugins as loadPlugins found them, each offered or left out with the reason */
  plugins(): readonly LoadedPlugin[];
  /** what plugin processes are held to: a server sets maxResult (--max-result) before it makes the catalogue */
  readonly pluginHosts: HostOptions;
  /**
   * Asked by a server before it first asks for the catalogue: the catalogue
   * then takes up a plugin installed, upgraded or removed in another process
   * (`rta pkg`) while it runs, as it does an upstream's approval.
   */
  watch(): void;
  /** stops every plugin process and upstream this command started */
  closePlugins(): void;
  /**
   * The upstreams in config, for the catalogue made after it: discovered now
   * (a server, `rta upstream list`), each message held to `maxMessage` bytes (9 MiB unless given),
   * or as the last discovery kept them; never throws.
   */
  loadUpstreams(discoverNow: boolean, maxMessage?: number): Promise<void>;
  /** the configured upstreams as the catalogue took them, each with its state and tools */
  upstreams(): readonly LoadedUpstream[];
  /** the upstreams' selected resources, templates and prompts as the catalogue took them; none without upstreams */
  selections(): Selections | undefined;
}

export interface CliParts {
  io?: Io;
  clock?: Clock;
  /** makes the catalogue; a bench or test may hand in its own */
  catalogue?: () => Catalogue;
}

/** The factory over the parts given, each left out one being the real process's; it refuses nothing. */
export function makeCli(parts: CliParts = {}): Cli {
  const io = parts.io ?? processIo();
  const clock = parts.clock ?? systemClock;
  let loaded: LoadedPlugin[] = [];
  let load: typeof import("../plugins/load.ts") | undefined;
  let hosts: PluginHosts | undefined;
  const hostOptions: HostOptions = {};
  const madeHosts = () => {
    hosts ??= new (load as typeof import("../plugins/load.ts")).PluginHosts(hostOptions);
    return hosts;
  };
  let upstreams: Upstreams | undefined;
  let watching = false;
  let describeAgain: boolean | ((name: string) => boolean) = true;
  const dataDir = () => dirs(io.env).data;
  /** The catalogue the plugins and upstreams make now; `again` takes up what another process's discovery kept. */
  const compose = (again: boolean): Catalogue => {
    const base = load ? load.withPlugins(builtinCatalogue(), loaded, madeHosts) : builtinCatalogue();
    if (upstreams === undefined) return base;
    const taken = namesTaken(builtinCatalogue());
    for (const p of loaded) taken.add(p.name);
    return again ? upstreams.retaken(base, taken) : upstreams.withUpstreams(base, taken);
  };
  // one load of the plugins at a time, each after the one before: the last one made is the one offered
  let reloading: Promise<unknown> = Promise.resolve();
  const reloadPlugins = (): Promise<Catalogue> => {
    const next = reloading.then(async () => {
      load ??= await import("../plugins/load.ts");
      const before = loaded;
      loaded = await load.loadPlugins(dataDir(), describeAgain, before);
      const made = compose(true);
      // a removed plugin's children stop, and an upgraded one's that run the binary it no longer is
      for (const p of before) {
        if (!p.offered) continue;
        const now = loaded.find((q) => q.offered && q.name === p.name);
        hosts?.retire(p.name, now?.offered ? { digest: now.sha256, file: now.file } : undefined);
      }
      return made;
    });
    reloading = next.catch(() => {});
    return next;
  };
  const made = (): Catalogue => {
    const first = compose(false);
    if (upstreams === undefined && !watching) return first;
    // made again when a person approves, removes or discovers an upstream, or installs or removes a plugin, in
    // another process while this one runs
    const { LiveCatalogue, upstreamFiles } = require("../upstreams/live.ts") as typeof import("../upstreams/live.ts");
    const index = join(pluginsDir(dataDir()), "index.json");
    const watched = [...(upstreams ? upstreamFiles(dataDir()) : []), ...(watching ? [index] : [])];
    return new LiveCatalogue(first, watched, (changed) => (changed.includes(index) ? reloadPlugins() : compose(true)));
  };
  const catalogue = once(parts.catalogue ?? made);
  return {
    io,
    clock,
    get catalogue() {
      return catalogue();
    },
    deps: once(() => depsModule().processDeps(io.env, { clock })),
    serverDeps: (record, roots, config) =>
      depsModule().processDeps(io.env, { record, roots, clock, ...(config ? { config } : {}) }),
    status: Exit.ok,
    async loadPlugins(describeChanged: boolean | ((name: string) => boolean) = true) {
      // the upstreams as the last discovery kept them: a grant or lock names their tools with nothing started
      if (upstreams === undefined) await this.loadUpstreams(false);
      describeAgain = describeChanged;
      // no index, no plugin: the plugin code is not even loaded
      if (parts.catalogue !== undefined || !existsSync(join(pluginsDir(dataDir()), "index.json"))) return;
      load = await import("../plugins/load.ts");
      loaded = await load.loadPlugins(dataDir(), describeChanged);
    },
    plugins: () => loaded,
    pluginHosts: hostOptions,
    watch: () => {
      watching = true;
    },
    closePlugins: () => {
      hosts?.close();
      upstreams?.kill();
    },
    async loadUpstreams(discoverNow, maxMessage) {
      if (parts.catalogue !== undefined) return;
      const d = dirs(io.env);
      const configured = usable(ConfigSource.inConfigDir(d.config).current())?.upstreams ?? {};
      if (Object.keys(configured).length === 0) return;
      const { Upstreams, MAX_MESSAGE } = await import("../upstreams/load.ts");
      const home = io.env.HOME ?? "/";
      upstreams = new Upstreams(configured, { dataDir: d.data, home, maxMessage: maxMessage ?? MAX_MESSAGE });
      if (discoverNow) await upstreams.discoverAll();
      else upstreams.fromKept();
    },
    upstreams: () => {
      // the states are settled as the catalogue takes the upstreams in
      if (upstreams !== undefined) catalogue();
      return upstreams?.listed() ?? [];
    },
    selections: () => {
      if (upstreams !== undefined) catalogue();
      return upstreams?.selections();
    },
  };
}

/** The process's dependencies' module, evaluated when a command first asks for them (`rta explain` never does). */
function depsModule(): typeof import("./deps.ts") {
  return require("./deps.ts") as typeof import("./deps.ts");
}
