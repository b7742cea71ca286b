/**
 * Times and sizes in words, for people and for models reading a result, and
 * a word with its article, and a word as a shell reads it back.
 */

/** A word with "a" or "an" before it, as its first letter says: "a loopback", "an integer". */
export function withArticle(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

const UNITS: [number, string][] = [
  [86_400, "d"],
  [3_600, "h"],
  [60, "min"],
  [1, "s"],
];

/** A duration in its largest whole unit: 10_800 -> "3 h", 90 -> "1 min". */
export function durationWords(seconds: number): string {
  const s = Math.abs(Math.trunc(seconds));
  for (const [size, unit] of UNITS) {
    if (s >= size) return `${Math.floor(s / size)} ${unit}`;
  }
  return "0 s";
}

/** "in 3 h" for a time ahead of `now`, "3 h ago" for one behind it (both in seconds). */
export function relativeWords(at: number, now: number): string {
  const delta = at - now;
  if (Math.abs(delta) < 1) return "now";
  return delta > 0 ? `in ${durationWords(delta)}` : `${durationWords(delta)} ago`;
}

const SIZE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** Bytes in binary units, one decimal above KiB: 1536 -> "1.5 KiB". */
export function bytesWords(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${SIZE_UNITS[unit]}`;
}

/** A word as a POSIX shell reads it back: bare when it is safe, single-quoted otherwise. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
