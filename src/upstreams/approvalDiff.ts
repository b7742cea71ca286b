/**
 * What approving an upstream now would change against what a person approved:
 * tools added, removed or changed (which fields), its executable, how it is
 * reached, and its selected resources, templates and prompts.
 */
import { canonical } from "../core/canonical.ts";
import { type Approval, type ApprovedTool, type Reach, sameReach } from "./approval.ts";
import type { SelectedDefinition } from "./catalog.ts";
import type { UpstreamTool } from "./discover.ts";

/** One changed tool: which fields of its definition changed, and its description then and now. */
export interface ChangedTool {
  tool: string;
  fields: string[];
  old: ApprovedTool;
  now: UpstreamTool;
}

export interface Diff {
  added: UpstreamTool[];
  removed: ApprovedTool[];
  changed: ChangedTool[];
  /** the executable's digest then and now, when it changed */
  exe?: { old: string | null; now: string | null };
  /** selected resources, templates and prompts added, removed or changed since (their keys) */
  selected?: {
    added: SelectedDefinition[];
    removed: string[];
    changed: { old: SelectedDefinition; now: SelectedDefinition }[];
  };
  /** how the upstream was reached then and now, when it moved */
  reach?: { old: Reach | null; now: Reach };
}

const FIELDS = ["title", "description", "inputSchema", "annotations"] as const;

/** What approving `tools` now (reached by `reach`, with `selected`) would change against `approval` (everything is added when there is none). */
export function diffOf(
  tools: readonly UpstreamTool[],
  exe: string | undefined,
  approval: Approval | undefined,
  reach?: Reach,
  selected: readonly SelectedDefinition[] = [],
): Diff {
  const was = new Map((approval?.tools ?? []).map((t) => [t.name, t]));
  const now = new Set(tools.map((t) => t.name));
  const diff: Diff = {
    added: tools.filter((t) => !was.has(t.name)),
    removed: (approval?.tools ?? []).filter((t) => !now.has(t.name)),
    changed: [],
  };
  for (const t of tools) {
    const old = was.get(t.name);
    if (old === undefined || old.digest === t.digest) continue;
    const fields = FIELDS.filter((f) => canonical(old[f] ?? null) !== canonical(t[f] ?? null));
    diff.changed.push({ tool: t.name, fields: fields.length > 0 ? [...fields] : ["definition"], old, now: t });
  }
  if (approval !== undefined && (approval.exe ?? null) !== (exe ?? null))
    diff.exe = { old: approval.exe ?? null, now: exe ?? null };
  if (approval !== undefined && reach !== undefined && !sameReach(approval.reach, reach))
    diff.reach = { old: approval.reach ?? null, now: reach };
  const before = new Map((approval?.selected ?? []).map((s) => [s.key, s]));
  const after = new Set(selected.map((s) => s.key));
  const sel: NonNullable<Diff["selected"]> = {
    added: selected.filter((s) => !before.has(s.key)),
    removed: [...before.keys()].filter((k) => !after.has(k)),
    changed: selected.flatMap((now) => {
      const old = before.get(now.key);
      return old !== undefined && old.digest !== now.digest ? [{ old, now }] : [];
    }),
  };
  if (sel.added.length + sel.removed.length + sel.changed.length > 0) diff.selected = sel;
  return diff;
}

/** Whether approving would change nothing. */
export function unchanged(diff: Diff): boolean {
  return (
    diff.added.length + diff.removed.length + diff.changed.length === 0 &&
    diff.exe === undefined &&
    diff.selected === undefined &&
    diff.reach === undefined
  );
}

/** The names of a stdio upstream's env variables added and removed between two reaches (none for a URL's, or from an unbound one). */
export function envNamesMoved(old: Reach | null, now: Reach): { added: string[]; removed: string[] } {
  const names = (r: Reach | null) => new Set(r !== null && "command" in r ? (r.env ?? []) : []);
  const was = names(old);
  const is = names(now);
  // one approved before rta bound its reach says "not bound", not every name as added
  if (!("command" in now) || old === null) return { added: [], removed: [] };
  return { added: [...is].filter((n) => !was.has(n)), removed: [...was].filter((n) => !is.has(n)) };
}
