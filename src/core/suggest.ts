/**
 * "Did you mean": the names close to a mistyped one, as git and gh suggest
 * them. A name is close when it starts with what was typed, or when a few
 * edits (an insertion, a deletion, a change, two letters swapped) make it.
 */
import type { Catalogue } from "./catalogue.ts";

/** Edits between two words (optimal string alignment: insert, delete, change, swap two neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The candidates closest to `typed`, best first, at most `limit`: those it
 * begins, then those within a third of its length in edits (at least one).
 * Case is ignored. Refuses nothing; none close gives [].
 */
export function closest(typed: string, candidates: Iterable<string>, limit = 3): string[] {
  const word = typed.toLowerCase();
  if (word === "") return [];
  const most = Math.max(1, Math.floor(word.length / 3));
  const scored: [string, number][] = [];
  for (const c of new Set(candidates)) {
    const lower = c.toLowerCase();
    if (lower === word) continue;
    if (lower.startsWith(word)) scored.push([c, -1]);
    else {
      const distance = editDistance(word, lower);
      if (distance <= most) scored.push([c, distance]);
    }
  }
  scored.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
  return scored.slice(0, limit).map(([c]) => c);
}

/** "did you mean `a`?" or "did you mean `a` or `b`?", each shaped by `form`; "" when there is none. */
export function didYouMean(names: string[], form: (name: string) => string = (n) => n): string {
  if (names.length === 0) return "";
  const quoted = names.map((n) => `\`${form(n)}\``);
  const last = quoted.pop() as string;
  return `did you mean ${quoted.length > 0 ? `${quoted.join(", ")} or ${last}` : last}?`;
}

/**
 * The capabilities a word names by what they do: one of their `also called`
 * words (`ps`, `cat`, `df`) or their own verb (`ping`, `tail`), under the
 * area already typed if any; at most three, by name. Refuses nothing.
 */
export function calledSo(catalogue: Catalogue, typed: string, words: string[] = []): string[] {
  const word = typed.toLowerCase();
  return catalogue
    .all()
    .filter((c) => words.length === 0 || c.words[0] === words[0])
    .filter((c) => c.words.at(-1) === word || (c.searchWords ?? []).includes(word))
    .map((c) => c.name)
    .sort()
    .slice(0, 3);
}
