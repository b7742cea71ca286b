/**
 * What one OSV record says of one dependency: how severe (a CVSS v3 score
 * computed from its vector where the record gives one, else the database's
 * own word) and which version fixes it, from the affected range that holds
 * the dependency's version.
 */
import { cvss3Score, rating } from "./cvss.ts";
import type { OsvAffected, OsvVuln } from "./depsOsv.ts";
import { pypiName } from "./lockfiles/python.ts";
import type { Dep } from "./lockfiles/types.ts";
import { compareVersions } from "./versionOrder.ts";

export interface Verdict {
  severity: string | null;
  score: number | null;
  vector: string | null;
  fixed: string | null;
  summary: string | null;
}

const WORDS: Record<string, string> = { moderate: "medium", important: "high" };

function samePackage(a: OsvAffected, dep: Dep): boolean {
  const eco = a.package?.ecosystem?.split(":")[0];
  const name = a.package?.name;
  if (eco !== dep.ecosystem || name === undefined) return false;
  return dep.ecosystem === "PyPI" ? pypiName(name) === dep.name : name === dep.name;
}

/** Whether `version` is in the range these events describe (introduced, then fixed or last_affected). */
function inRange(version: string, events: Record<string, string>[]): { holds: boolean; fixed?: string } {
  let start: string | undefined;
  for (const e of events) {
    if (e.introduced !== undefined) start = e.introduced;
    const end = e.fixed ?? e.last_affected ?? e.limit;
    if (end === undefined || start === undefined) continue;
    const after = start === "0" || compareVersions(version, start) >= 0;
    const before =
      e.last_affected !== undefined ? compareVersions(version, end) <= 0 : compareVersions(version, end) < 0;
    if (after && before) return { holds: true, fixed: e.fixed };
    start = undefined;
  }
  if (start !== undefined && (start === "0" || compareVersions(version, start) >= 0)) return { holds: true };
  return { holds: false };
}

/** The version that fixes `dep` by this record, or null when it names none (or none for its range). */
export function fixedFor(vuln: OsvVuln, dep: Dep): string | null {
  const mine = (vuln.affected ?? []).filter((a) => samePackage(a, dep));
  const fixes: string[] = [];
  for (const a of mine) {
    for (const range of a.ranges ?? []) {
      if (range.type === "GIT") continue;
      const events = range.events ?? [];
      const found = inRange(dep.version, events);
      if (found.holds) return found.fixed ?? null;
      for (const e of events) if (e.fixed !== undefined) fixes.push(e.fixed);
    }
  }
  // listed as affected but in no range read here: the first fix after it
  const later = fixes.filter((f) => compareVersions(f, dep.version) > 0).sort(compareVersions);
  return later[0] ?? null;
}

/** The severity, score and vector a record gives `dep`: CVSS v3 scored, else v4's vector and the database's word. */
export function severityOf(vuln: OsvVuln, dep: Dep): Pick<Verdict, "severity" | "score" | "vector"> {
  const mine = (vuln.affected ?? []).filter((a) => samePackage(a, dep));
  const all = [...(vuln.severity ?? []), ...mine.flatMap((a) => a.severity ?? [])];
  const v3 = all.find((s) => s.type === "CVSS_V3" && cvss3Score(s.score) !== undefined);
  if (v3) {
    const score = cvss3Score(v3.score) as number;
    return { severity: rating(score), score, vector: v3.score };
  }
  const other = all.find((s) => s.type === "CVSS_V4") ?? all.find((s) => s.type.startsWith("CVSS"));
  const word = (
    vuln.database_specific?.severity ?? mine.find((a) => a.database_specific?.severity)?.database_specific?.severity
  )
    ?.toString()
    .toLowerCase();
  return { severity: word ? (WORDS[word] ?? word) : null, score: null, vector: other?.score ?? null };
}

/** Everything one record says of one dependency; a record osv.dev no longer has says only its id. */
export function verdict(vuln: OsvVuln | undefined, dep: Dep): Verdict {
  if (!vuln) return { severity: null, score: null, vector: null, fixed: null, summary: null };
  const summary = vuln.summary ?? vuln.details?.split("\n")[0]?.slice(0, 200) ?? null;
  return { ...severityOf(vuln, dep), fixed: fixedFor(vuln, dep), summary };
}

const ORDER = ["critical", "high", "medium", "low", "none"];

/** Sorts by severity, most severe first (unknown last); refuses nothing. */
export function bySeverity(a: string | null, b: string | null): number {
  const rank = (s: string | null) => (s === null ? 9 : ORDER.indexOf(s) < 0 ? 5 : ORDER.indexOf(s));
  return rank(a) - rank(b);
}
