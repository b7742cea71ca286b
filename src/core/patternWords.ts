/**
 * The words a pattern's every match holds, and a finder for them by plain
 * substring search, so a search skips to the lines that can match instead of
 * running RE2 on each. Read from the pattern itself when it is plain words
 * joined by |, else from the prefilter re2js builds for itself.
 */

/** At most this many words make a pattern screened by plain search; more are left to RE2. */
const MAX_SCREEN_WORDS = 16;

/**
 * The words of a pattern that is only plain words joined by | (the commonest
 * searches: `TODO`, `ERROR|FATAL`), for a screen by native substring search,
 * several times faster than RE2's DFA. Under ignore-case only ASCII words
 * qualify, whose case variants wordFinder can find by lowering the text.
 */
export function plainWords(pattern: string, ignoreCase: boolean): string[] | undefined {
  if (pattern === "" || /[\\.^$|?*+()[\]{}]/.test(pattern.replaceAll("|", ""))) return undefined;
  const words = pattern.split("|");
  if (words.length > MAX_SCREEN_WORDS || words.includes("")) return undefined;
  if (ignoreCase && !/^[\x20-\x7e]*$/.test(pattern)) return undefined;
  return words;
}

/**
 * Words one of which every match holds, read from the prefilter re2js builds
 * for itself (its shape is not typed; re2js is pinned): an exact literal; for
 * a sequence, the sub-pattern whose words are longest; for alternatives, all
 * of theirs. Undefined when there are none (a case-folded literal has none) or
 * more than MAX_SCREEN_WORDS. `ERROR.*disk`, `^\s*return null;` and
 * `(GET|POST) /api` all have some, and are found by substring search.
 */
export function requiredWords(prefilter: unknown): string[] | undefined {
  const p = prefilter as { type?: number; str?: unknown; subs?: unknown[] } | null | undefined;
  if (!p) return undefined;
  if (p.type === PREFILTER_EXACT) return typeof p.str === "string" && p.str !== "" ? [p.str] : undefined;
  if (p.type === PREFILTER_AND) {
    let best: string[] | undefined;
    for (const sub of p.subs ?? []) {
      const words = requiredWords(sub);
      if (words && (!best || shortest(words) > shortest(best))) best = words;
    }
    return best;
  }
  if (p.type === PREFILTER_OR) {
    const all: string[] = [];
    for (const sub of p.subs ?? []) {
      const words = requiredWords(sub);
      if (!words) return undefined;
      all.push(...words);
      if (all.length > MAX_SCREEN_WORDS) return undefined;
    }
    return all.length > 0 ? all : undefined;
  }
  return undefined;
}

/** re2js's Prefilter.Type values */
const PREFILTER_EXACT = 1;
const PREFILTER_AND = 2;
const PREFILTER_OR = 3;

function shortest(words: string[]): number {
  return Math.min(...words.map((w) => w.length));
}

/**
 * Finds the words as plain text. Under ignore-case the words are ASCII, and
 * the only characters RE2 folds to an ASCII letter are its two cases, the
 * Kelvin sign (which lowers to k) and the long s (which lowers to itself, so
 * it is made an s): the lowered text holds every case variant of a word,
 * lowered, at the same place, unless lowering lengthened a character (such as
 * U+0130); then places cannot be told, and every line from `from` on is a
 * candidate if a word is there at all. Substring search is at worst the
 * text's length times the word's, both bounded (a chunk, MAX_PATTERN_CHARS).
 */
export function wordFinder(words: string[], ignoreCase: boolean): (text: string, from: number) => number {
  const sought = ignoreCase ? words.map((w) => w.toLowerCase()) : words;
  let seen: string | undefined; // the text the places below are for, and the last place asked from
  let lastFrom = 0;
  let searched = "";
  let aligned = true;
  const next = sought.map(() => -1); // each word's next place at or after the last `from`, -1 for none
  return (text, from) => {
    // a new text, or the same again from further back (two files alike): the places are found anew
    if (text !== seen || from < lastFrom) {
      seen = text;
      searched = text;
      if (ignoreCase) {
        searched = text.toLowerCase();
        if (searched.includes("\u017f")) searched = searched.replaceAll("\u017f", "s");
      }
      aligned = searched.length === text.length;
      for (let i = 0; i < sought.length; i++) next[i] = searched.indexOf(sought[i] as string);
    }
    lastFrom = from;
    let first = -1;
    for (let i = 0; i < sought.length; i++) {
      let at = next[i] as number;
      if (at !== -1 && at < from) next[i] = at = searched.indexOf(sought[i] as string, from);
      if (at !== -1 && (first === -1 || at < first)) first = at;
    }
    return first === -1 || aligned ? first : from;
  };
}
