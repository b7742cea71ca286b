/**
 * The upstreams a process offers, beside the built-ins and plugins. A server
 * discovers each configured upstream when it starts (8 at once at most, each
 * within 10 s); one that fails or is slow is left out with the reason and
 * never stops the server. What a discovery found is kept in the data dir
 * (`upstreams/discovered.json`, written whole), so a person's command (a
 * grant, a lock, `rta explain`) knows the tools without starting anything.
 * A stdio upstream's child started for discovery is kept for calls; it and
 * every connection are stopped with the process.
 */
import type { Capability } from "../core/capability.ts";
import type { Catalogue, ValidatorSet } from "../core/catalogue.ts";
import { type UpstreamConfig, upstreamSecrets } from "../core/configUpstreams.ts";
import { RtaError } from "../core/errors.ts";
import { lap } from "../core/profile.ts";
import { approvalPin, exeDigest, judged, reachOf, readApprovals, type Withheld } from "./approval.ts";
import type { CatalogFound } from "./catalog.ts";
import type { UpstreamConnection } from "./connection.ts";
import type { Discovered, UpstreamTool } from "./discover.ts";
import type { ExposedItem, ReadUpstream } from "./exposed.ts";
import { configDigest, readKept, writeKept } from "./kept.ts";
import { type LoadedUpstream, listedToolsOf } from "./listing.ts";
import { schemaFault } from "./schemas.ts";
import { masked } from "./secrets.ts";
import { exposedItems, type Selections, selections } from "./selections.ts";
import { normalisedName, type RunUpstream, upstreamCapabilities } from "./tools.ts";

export const DISCOVERY_MS = 10_000;
export const CALL_MS = 60_000;
/** What one message from an upstream may take when no server bound says otherwise: 8 MiB of answer and its envelope. */
export const MAX_MESSAGE = 9 * 1024 * 1024;
const AT_ONCE = 8;

export type { LoadedUpstream } from "./listing.ts";

export interface UpstreamOptions {
  dataDir: string;
  home: string;
  /** the most bytes one message from an upstream may take (the server's hard bound and room for its envelope) */
  maxMessage: number;
  discoveryMs?: number;
  callMs?: number;
}

export class Upstreams {
  private readonly connections = new Map<string, UpstreamConnection>();
  private readonly found = new Map<string, Found>();
  private loaded: LoadedUpstream[] = [];
  private items: ExposedItem[] = [];
  /** call.ts, loaded at the first call */
  private calls: Promise<typeof import("./call.ts")> | undefined;
  private readonly secrets = new Map<string, readonly string[]>();

  constructor(
    private readonly configs: Record<string, UpstreamConfig>,
    readonly options: UpstreamOptions,
  ) {}

  /** The connection to `name`, made on first ask; the MCP client's code is loaded only then (a person's grant never). */
  private async connection(name: string): Promise<UpstreamConnection> {
    let c = this.connections.get(name);
    if (c === undefined) {
      const { UpstreamConnection } = await import("./connection.ts");
      c = this.connections.get(name);
      if (c !== undefined) return c;
      c = new UpstreamConnection(this.configs[name] as UpstreamConfig, {
        maxMessage: this.options.maxMessage,
        home: this.options.home,
        connectMs: this.options.discoveryMs ?? DISCOVERY_MS,
        callMs: this.options.callMs ?? CALL_MS,
      });
      this.connections.set(name, c);
    }
    return c;
  }

  /** Discovers every configured upstream now (or only `only`) and keeps what was found; never throws. */
  async discoverAll(only?: string): Promise<void> {
    const names = Object.keys(this.configs).filter((n) => only === undefined || n === only);
    let next = 0;
    const worker = async () => {
      while (next < names.length) {
        const name = names[next++] as string;
        // the program a stdio child runs, as found before it is started (a program that puts the approved one back
        // once it runs is not the approved one): a changed one withholds the upstream until approved again
        const exe = exeDigest(this.configs[name] as UpstreamConfig, this.options.dataDir);
        const found: Found = { ...(await this.discoverOne(name)), state: "failed" };
        if (found.ok)
          Object.assign(found, { state: "ready", catalog: await this.selectedOf(name) }, exe ? { exe } : {});
        this.found.set(name, found);
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, names.length) }, worker));
    this.keep();
  }

  private async discoverOne(name: string): Promise<Discovered> {
    const connection = await this.connection(name);
    const { discover } = await import("./discover.ts");
    const ms = this.options.discoveryMs ?? DISCOVERY_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Discovered>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, reason: `it did not list its tools within ${ms / 1000} s` }), ms);
    });
    const found = await Promise.race([discover(connection, ms), late]);
    clearTimeout(timer);
    // what is kept in the data dir holds none of the operator's secrets an upstream echoed into its definitions,
    // nor into a tool's name that a failure's reason quotes
    const secrets = upstreamSecrets(this.configs[name] as UpstreamConfig);
    if (!found.ok) connection.drop();
    if (!found.ok) return { ok: false, reason: masked(found.reason, secrets) };
    const tools = found.tools.map(({ digest, ...definition }) => ({
      ...(JSON.parse(masked(JSON.stringify(definition), secrets)) as Omit<UpstreamTool, "digest">),
      digest,
    }));
    return { ok: true, tools };
  }

  /** The selected resources, templates and prompts of `name` found now; undefined when config selects none. */
  private async selectedOf(name: string): Promise<CatalogFound | undefined> {
    const config = this.configs[name] as UpstreamConfig;
    if ((config.select ?? []).length === 0) return undefined;
    const ms = this.options.discoveryMs ?? DISCOVERY_MS;
    return (await import("./catalog.ts")).discoverSelected(await this.connection(name), config, ms);
  }

  /** Takes what the last discovery kept for each upstream whose config is unchanged; never throws. */
  fromKept(): void {
    const kept = readKept(this.options.dataDir);
    for (const [name, config] of Object.entries(this.configs)) {
      const entry = kept[name];
      if (entry === undefined || entry.config !== configDigest(config)) continue;
      const exe = {
        ...(entry.exe !== undefined ? { exe: entry.exe } : {}),
        ...(entry.catalog ? { catalog: entry.catalog } : {}),
      };
      if (entry.tools !== undefined) this.found.set(name, { ok: true, tools: entry.tools, state: "known", ...exe });
      else this.found.set(name, { ok: false, reason: entry.reason ?? "its discovery failed", state: "failed" });
    }
  }

  private keep(): void {
    const kept = readKept(this.options.dataDir);
    for (const [name, found] of this.found) {
      const config = configDigest(this.configs[name] as UpstreamConfig);
      // a schema's fault is noted as it is kept: a person's command then compiles a schema only when it is called
      const tools = found.ok ? found.tools.map((t) => withFault(t)) : [];
      const exe = {
        ...(found.exe !== undefined ? { exe: found.exe } : {}),
        ...(found.catalog ? { catalog: found.catalog } : {}),
      };
      kept[name] = found.ok ? { config, tools, ...exe } : { config, reason: found.reason };
    }
    for (const name of Object.keys(kept)) if (!(name in this.configs)) delete kept[name];
    writeKept(this.options.dataDir, kept);
  }

  /**
   * `base` with every found upstream's tools added, as a person's approvals,
   * removals and discoveries in another process left them (live.ts makes the
   * catalogue again with it): what that discovery kept replaces what this one
   * found. Refuses nothing.
   */
  retaken(base: Catalogue, taken: ReadonlySet<string>): Catalogue {
    this.retake();
    return this.withUpstreams(base, taken);
  }

  /** Takes what another process's discovery kept of each upstream this one found, config unchanged. */
  private retake(): void {
    const kept = readKept(this.options.dataDir);
    for (const [name, config] of Object.entries(this.configs)) {
      const entry = kept[name];
      const found = this.found.get(name);
      if (entry?.tools === undefined || entry.config !== configDigest(config) || found?.ok !== true) continue;
      // the program this process hashed (and runs) stays its own: a changed one is judged as this process found it
      this.found.set(name, { ...found, tools: entry.tools, ...(entry.catalog ? { catalog: entry.catalog } : {}) });
    }
  }

  /** `base` with every found upstream's tools added; a name `base` has already is left out with why. Refuses nothing. */
  withUpstreams(base: Catalogue, taken: ReadonlySet<string>): Catalogue {
    const caps: Capability[] = [];
    let validators: ValidatorSet = {};
    const tools = new Set(base.all().map((c) => c.tool));
    const approvals = readApprovals(this.options.dataDir);
    const withheld = new Map<string, Withheld>();
    this.loaded = [];
    this.items = [];
    for (const [name, config] of Object.entries(this.configs)) {
      const transport = config.transport.kind;
      const found = this.found.get(name);
      if (found === undefined) {
        this.loaded.push({ name, transport, state: "unknown", reason: "not discovered yet", tools: [] });
        continue;
      }
      if (!found.ok) {
        this.loaded.push({ name, transport, state: "failed", reason: found.reason, tools: [] });
        continue;
      }
      if (taken.has(name)) {
        const reason = `its name is an area or command rta has already (${name})`;
        this.loaded.push({ name, transport, state: "failed", reason, tools: [] });
        continue;
      }
      const approval = approvals[name];
      const judge = judged(name, found.tools, found.exe, approval, transport === "stdio", reachOf(config));
      const made = upstreamCapabilities(config, judge.offered, this.run, tools, found.state === "ready");
      const pin = approval !== undefined ? approvalPin(approval) : undefined;
      for (const c of made.caps) {
        tools.add(c.tool);
        if (c.upstream !== undefined && pin !== undefined) c.upstream.pin = pin;
      }
      for (const w of judge.withheld) withheld.set(`${name}_${normalisedName(w.tool) ?? w.tool}`, w);
      caps.push(...made.caps);
      validators = { ...validators, ...made.validators };
      const state = approval === undefined ? "quarantined" : found.state;
      const sel = selections(config, found.catalog, found.exe, approval);
      this.items.push(...sel.items);
      const listedTools = listedToolsOf(name, found.tools, made, judge.withheld);
      this.loaded.push({ name, transport, state, tools: listedTools, selected: sel.listed });
    }
    return caps.length === 0 && withheld.size === 0 ? base : base.with(caps, validators, withheld);
  }

  /** What the discovery found of `name` (its tools and executable's digest), or why it failed; undefined when not configured or not discovered. */
  foundOf(name: string): Found | undefined {
    return this.found.get(name);
  }

  /** Each configured upstream as withUpstreams found it. */
  listed(): readonly LoadedUpstream[] {
    return this.loaded;
  }

  /** The offered resources, templates and prompts (as withUpstreams last settled them), and what reads them. */
  selections(): Selections {
    return exposedItems(() => this.items, this.read);
  }

  private readonly read: ReadUpstream = async (item, request, signal) => {
    const config = this.configs[item.upstream] as UpstreamConfig;
    this.checkExe(item.upstream, config);
    const { readAtUpstream } = await import("./read.ts");
    return readAtUpstream(await this.connection(item.upstream), item, request, signal, upstreamSecrets(config), {
      callMs: this.options.callMs ?? CALL_MS,
      hard: this.options.maxMessage,
    });
  };

  private checkExe(name: string, config: UpstreamConfig): void {
    // a stdio child may be started again for this call (after it stopped): from the program approved, or not at all
    if (config.transport.kind === "stdio" && exeDigest(config, this.options.dataDir) !== this.found.get(name)?.exe)
      throw new RtaError(
        "upstream.changed",
        `upstream ${name}'s executable changed since it was approved`,
        `a person runs \`rta upstream approve ${name}\``,
      );
  }

  private readonly run: RunUpstream = async (ref, args, signal) => {
    const config = this.configs[ref.name] as UpstreamConfig;
    this.calls ??= import("./call.ts");
    const { callUpstream } = await this.calls;
    const limits = { callMs: this.options.callMs ?? CALL_MS, hard: this.options.maxMessage };
    const connection = this.connections.get(ref.name) ?? (await this.connection(ref.name));
    lap("upstream: call path");
    // the operator's secrets the upstream is handed, worked out once: config does not change while a process runs
    const secrets = this.secrets.get(ref.name) ?? upstreamSecrets(config);
    this.secrets.set(ref.name, secrets);
    // the executable is checked where a child would be started for this call (after one stopped): a running child
    // was started from the program checked then, and a changed program never runs
    return callUpstream(connection, ref, args, signal, secrets, limits, () => this.checkExe(ref.name, config));
  };

  /** Stops every connection and stdio child; refuses nothing. */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }

  /** For a process about to exit: kills every stdio child's group at once; refuses nothing. */
  kill(): void {
    for (const c of this.connections.values()) c.kill();
  }
}

function withFault(tool: UpstreamTool): UpstreamTool {
  const fault = schemaFault(tool);
  return fault === undefined ? tool : { ...tool, fault };
}

/** What a discovery found of one upstream, with the digest of a stdio upstream's executable and its selections. */
export type Found = Discovered & { state: LoadedUpstream["state"]; exe?: string; catalog?: CatalogFound };
