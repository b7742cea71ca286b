/**
 * Times as the CLI shows them, after gh: relative on a terminal ("3m ago",
 * "in 29m"), ISO 8601 in UTC to the second piped and in --json. A result
 * carries a time as ISO text; a column or field whose unit is "time" is
 * drawn relative by render.ts, and the operator's listings use the same words.
 */

/** A time as `--json` and a pipe give it: ISO 8601 in UTC to the second; null stays null. */
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

const SHORT_UNITS: [number, string][] = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "m"],
  [1000, "s"],
];

/** A time against now as a terminal shows it, in its largest whole unit: "in 29m", "3m ago", "now". */
export function relativeTime(at: number, now: number): string {
  const delta = at - now;
  const size = Math.abs(delta);
  if (size < 1000) return "now";
  const [unit, name] = SHORT_UNITS.find(([u]) => size >= u) as [number, string];
  const words = `${Math.floor(size / unit)}${name}`;
  return delta > 0 ? `in ${words}` : `${words} ago`;
}
