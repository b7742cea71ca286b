/**
 * A catalogue that takes up what a person did in another process while a
 * server runs: an upstream's approval (`rta upstream approve`), its removal
 * (`rta upstream remove`) or a discovery (`rta upstream refresh`), and a
 * plugin installed, upgraded or removed (`rta pkg`). It stats the files those
 * verbs write (their identity, never their bytes) at most once every 100 ms
 * as a list or call asks it, and, while anyone listens, every 500 ms on its
 * own; only when one changed does it make the catalogue again. What is made
 * at once (the upstreams' files) is offered at once; what must wait (a
 * plugin described) is offered once it is made, and until then the
 * catalogue offered stays as it was, so a list or call never waits on it.
 * Whoever listens is told when the tools offered changed (a server sends
 * `notifications/tools/list_changed`).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Capability } from "../core/capability.ts";
import { Catalogue, type Held, type Validate, type ValidatorSet } from "../core/catalogue.ts";
import type { Audience } from "../core/schema.ts";
import { APPROVALS_FILE } from "./approval.ts";
import { KEPT_FILE } from "./kept.ts";

/** How long a stat is taken as still true. */
const STAT_MS = 100;
/** How often a catalogue someone listens to looks on its own, with no list or call to ask it. */
const POLL_MS = 500;

/** The files a person's upstream verbs write, under the data dir `dataDir`. Refuses nothing. */
export function upstreamFiles(dataDir: string): string[] {
  return [join(dataDir, APPROVALS_FILE), join(dataDir, KEPT_FILE)];
}

/** A file's identity (inode, size, change and modification time), or that it is missing. Refuses nothing. */
function stamp(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.ctimeNs}:${s.mtimeNs}`;
  } catch {
    return "-";
  }
}

/** What an agent is offered: each tool's name, its definition's digest (an upstream's or a plugin's) and its class. */
function offered(catalogue: Catalogue): string {
  return catalogue
    .all()
    .map((c) => `${c.tool}\t${c.upstream?.digest ?? c.plugin?.digest ?? ""}\t${c.safety}`)
    .join("\n");
}

/**
 * Makes the catalogue again from what the files say now, told which of the watched files changed; a promise is
 * offered once it resolves (what it resolves to is made from what is true then, so one resolved late is no older).
 */
export type Remake = (changed: readonly string[]) => Catalogue | Promise<Catalogue>;

export class LiveCatalogue extends Catalogue {
  private current: Catalogue;
  private readonly seen: Map<string, string>;
  private lookedAt = 0;
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | undefined;

  /** `make` makes the catalogue again; it is called only when one of the `watched` files changed. */
  constructor(
    first: Catalogue,
    watched: readonly string[],
    private readonly make: Remake,
    private readonly now: () => number = Date.now,
  ) {
    super([]);
    this.current = first;
    this.seen = new Map(watched.map((f) => [f, stamp(f)]));
    this.lookedAt = now();
  }

  /** The catalogue as the files say it now, made again only when one changed since the last look. Refuses nothing. */
  fresh(force = false): Catalogue {
    const at = this.now();
    if (!force && at - this.lookedAt < STAT_MS) return this.current;
    this.lookedAt = at;
    const changed: string[] = [];
    for (const [file, was] of this.seen) {
      const now = stamp(file);
      if (now === was) continue;
      this.seen.set(file, now);
      changed.push(file);
    }
    if (changed.length === 0) return this.current;
    let made: Catalogue | Promise<Catalogue>;
    try {
      made = this.make(changed);
    } catch {
      return this.current; // what was offered stays offered; the next change tries again
    }
    if (made instanceof Catalogue) this.take(made);
    // what was offered stays offered until it is made; one that fails leaves it, and the next change tries again
    else made.then((c) => this.take(c)).catch(() => {});
    return this.current;
  }

  /** Offers `next`, and tells each listener when the tools offered changed with it. */
  private take(next: Catalogue): void {
    const before = offered(this.current);
    this.current = next;
    if (offered(next) !== before) for (const listener of this.listeners) listener();
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
