/**
 * The catalogue: every capability rta offers, looked up by dotted name (a
 * person) or by tool name (an agent), always listed in one order, plus the
 * names that are never a tool at any price.
 */
import type { Capability } from "./capability.ts";
import type { Audience } from "./schema.ts";

/** A compiled shape check (ajv standalone code), with ajv's errors after a failure. */
export type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; keyword: string; params: Record<string, unknown> }[] | null;
};

/** `proc.list#agent` -> its validator; see src/gate/shapeSchemas.ts. */
export type ValidatorSet = Record<string, Validate>;

/**
 * Never a tool: these answer to the person at the terminal and nobody else.
 * Every verb of the listed areas, and the listed verbs of other areas. An
 * agent that could issue itself a grant, lift its own lock or read the roster
 * of what other agents may do would make the gate theatre.
 */
export const NEVER_A_TOOL = {
  areas: ["agent", "config", "doctor", "grant", "lock", "mcp", "operator", "pkg", "upstream"],
  verbs: ["audit.clients", "audit.doctor", "kv.copy", "kv.edit", "keys.export", "keys.import"],
} as const;

/**
 * Names no plugin may take, beside the built-in and never-a-tool areas:
 * `core`, the prefix of rta's own codes (a plugin's refusal under it would
 * read as the gate's, a grant refused or a lock), and the command line's
 * verbs that are no area, which a plugin's commands would shadow or be
 * shadowed by.
 */
export const NEVER_A_PLUGIN = ["completion", "core", "explain", "help"] as const;

/** Every name a plugin beside `base` may not take: `base`'s areas, the never-a-tool areas and NEVER_A_PLUGIN. */
export function namesTaken(base: Catalogue): Set<string> {
  return new Set<string>([...base.areas(), ...NEVER_A_TOOL.areas, ...NEVER_A_PLUGIN]);
}

/** Plain code-point order, so `_` sorts before letters, as tools/list promises. */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A tool withheld from agents: the code and the reason its call is answered with. */
export interface Held {
  code: "upstream.quarantined" | "upstream.changed";
  reason: string;
}

export class Catalogue {
  private readonly byDotted = new Map<string, Capability>();
  private readonly byToolName = new Map<string, Capability>();
  private readonly ordered: readonly Capability[];

  /**
   * Refuses a duplicate name or tool name, and a capability that is never a
   * tool. `validators` are the shape checks generated from these declarations.
   */
  constructor(
    capabilities: readonly Capability[],
    private readonly validators: ValidatorSet = {},
    private readonly held: ReadonlyMap<string, Held> = new Map(),
  ) {
    for (const cap of capabilities) {
      if (this.byDotted.has(cap.name) || this.byToolName.has(cap.tool)) {
        throw new Error(`capability ${cap.name} is declared twice`);
      }
      if (isNeverATool(cap.name)) throw new Error(`capability ${cap.name} is never a tool`);
      this.byDotted.set(cap.name, cap);
      this.byToolName.set(cap.tool, cap);
    }
    this.ordered = [...capabilities].sort((a, b) => byCodePoint(a.tool, b.tool));
  }

  /** Every capability, in tool-name order. */
  all(): readonly Capability[] {
    return this.ordered;
  }

  byName(name: string): Capability | undefined {
    return this.byDotted.get(name);
  }

  byTool(tool: string): Capability | undefined {
    return this.byToolName.get(tool);
  }

  /** Why the tool of that name is withheld (an upstream's, not approved as it is now); undefined for any other. */
  withheld(tool: string): Held | undefined {
    return this.held.get(tool);
  }

  /** The shape check for a capability and audience; undefined when none was generated for it. */
  validator(name: string, audience: Audience): Validate | undefined {
    return this.validators[`${name}#${audience}`];
  }

  /**
   * A new catalogue of these capabilities and `more` (a plugin's), with their
   * shape checks; refuses what the constructor refuses (a name taken twice).
   */
  with(more: readonly Capability[], validators: ValidatorSet, held?: ReadonlyMap<string, Held>): Catalogue {
    const all = held === undefined ? this.held : new Map([...this.held, ...held]);
    return new Catalogue([...this.ordered, ...more], { ...this.validators, ...validators }, all);
  }

  /** The areas offered, in order. */
  areas(): string[] {
    return [...new Set(this.ordered.map((c) => c.area))].sort(byCodePoint);
  }
}

/** True for a dotted name (`grant.allow`) or tool name (`grant_allow`) that is never a tool. */
export function isNeverATool(name: string): boolean {
  const dotted = name.includes(".") ? name : name.replaceAll("_", ".");
  const area = dotted.split(".")[0] ?? "";
  if ((NEVER_A_TOOL.areas as readonly string[]).includes(area)) return true;
  return NEVER_A_TOOL.verbs.some((verb) => dotted === verb || dotted.startsWith(`${verb}.`));
}

/** The never-a-tool names as a person reads them in `rta explain`. */
export function neverAToolList(): string[] {
  return [...NEVER_A_TOOL.areas.map((a) => `${a} (every verb)`), ...NEVER_A_TOOL.verbs.map((v) => v.replace(".", " "))];
}
