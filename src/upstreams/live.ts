/**
 * A catalogue that takes up what a person did in another process while a
 * server runs: an approval (`rta upstream approve`), its removal
 * (`rta upstream remove`) or a discovery (`rta upstream refresh`). It stats
 * the approvals' and discoveries' files (their identity, never their bytes)
 * at most once every 100 ms as a list or call asks it, and, while anyone
 * listens, every 500 ms on its own; only when one changed does it read them
 * and make the catalogue again. Whoever listens is told when the tools
 * offered changed (a server sends `notifications/tools/list_changed`).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Capability } from "../core/capability.ts";
import { Catalogue, type Held, type Validate, type ValidatorSet } from "../core/catalogue.ts";
import type { Audience } from "../core/schema.ts";

/** How long a stat is taken as still true. */
const STAT_MS = 100;
/** How often a catalogue someone listens to looks on its own, with no list or call to ask it. */
const POLL_MS = 500;
/** The files a person's verbs write, under the data dir. */
const WATCHED = [join("upstreams", "approved.json"), join("upstreams", "discovered.json")];

/** Each watched file's identity (inode, size, change time), or that it is missing. Refuses nothing. */
function stamp(dataDir: string): string {
  return WATCHED.map((f) => {
    try {
      const s = statSync(join(dataDir, f), { bigint: true });
      return `${s.ino}:${s.size}:${s.ctimeNs}:${s.mtimeNs}`;
    } catch {
      return "-";
    }
  }).join("|");
}

/** What an agent is offered: each tool's name and its definition's digest (an upstream's), in order. */
function offered(catalogue: Catalogue): string {
  return catalogue
    .all()
    .map((c) => `${c.tool}\t${c.upstream?.digest ?? ""}\t${c.safety}`)
    .join("\n");
}

export class LiveCatalogue extends Catalogue {
  private current: Catalogue;
  private seen: string;
  private lookedAt = 0;
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | undefined;

  /** `make` makes the catalogue again from what the files say now; it is called only when one changed. */
  constructor(
    first: Catalogue,
    private readonly dataDir: string,
    private readonly make: () => Catalogue,
    private readonly now: () => number = Date.now,
  ) {
    super([]);
    this.current = first;
    this.seen = stamp(dataDir);
    this.lookedAt = now();
  }

  /** The catalogue as the files say it now, made again only when one changed since the last look. Refuses nothing. */
  fresh(force = false): Catalogue {
    const at = this.now();
    if (!force && at - this.lookedAt < STAT_MS) return this.current;
    this.lookedAt = at;
    const seen = stamp(this.dataDir);
    if (seen === this.seen) return this.current;
    this.seen = seen;
    const before = offered(this.current);
    try {
      this.current = this.make();
    } catch {
      return this.current; // what was offered stays offered; the next change tries again
    }
    if (offered(this.current) !== before) for (const listener of this.listeners) listener();
    return this.current;
  }

  /** Calls `listener` each time the tools offered change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.fresh(), POLL_MS);
      this.timer.unref?.();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  override all(): readonly Capability[] {
    return this.fresh().all();
  }

  override byName(name: string): Capability | undefined {
    return this.fresh().byName(name);
  }

  override byTool(tool: string): Capability | undefined {
    return this.fresh().byTool(tool);
  }

  override withheld(tool: string): Held | undefined {
    return this.fresh().withheld(tool);
  }

  override validator(name: string, audience: Audience): Validate | undefined {
    return this.fresh().validator(name, audience);
  }

  override with(more: readonly Capability[], validators: ValidatorSet, held?: ReadonlyMap<string, Held>): Catalogue {
    return this.fresh().with(more, validators, held);
  }

  override areas(): string[] {
    return this.fresh().areas();
  }
}

/** True when `catalogue` takes up a person's changes made while it runs, and can say when its tools change. */
export function isLive(catalogue: Catalogue): catalogue is LiveCatalogue {
  return catalogue instanceof LiveCatalogue;
}
