/**
 * What a lockfile parser gives: the packages it pins, each with the name and
 * version osv.dev knows it by and the ecosystem osv.dev files it under.
 */

/** osv.dev's names for the ecosystems rta reads lockfiles of. */
export type Ecosystem = "npm" | "PyPI" | "Go" | "crates.io" | "RubyGems" | "Packagist" | "Maven";

/** One pinned package. */
export interface Dep {
  name: string;
  version: string;
  ecosystem: Ecosystem;
}

/** A parser: the text of one lockfile to the packages it pins. Throws a plain Error on text it cannot read. */
export type Parser = (text: string) => Dep[];

/** Each name@version once, in the order first seen; refuses nothing. */
export function unique(deps: Dep[]): Dep[] {
  const seen = new Set<string>();
  return deps.filter((d) => {
    const key = `${d.ecosystem}\u0000${d.name}\u0000${d.version}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The value as an object to look into, or undefined for anything else (an array, a scalar); refuses nothing. */
export function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The value when it is a non-empty string, else undefined; refuses nothing. */
export function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}
