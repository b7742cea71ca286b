/**
 * An order on version strings good across ecosystems for one question: which
 * of an advisory's ranges holds a version, and so which fix applies. Numbers
 * compare as numbers, words as text, and a pre-release (`1.0.0-rc.1`,
 * `2.0b1`) comes before its release.
 */

/** The pieces of a version: runs of digits as numbers, runs of letters as text; separators dropped. */
function pieces(v: string): (number | string)[] {
  const out: (number | string)[] = [];
  let i = v.startsWith("v") ? 1 : 0;
  while (i < v.length) {
    const c = v[i] as string;
    let j = i;
    if (c >= "0" && c <= "9") {
      while (j < v.length && (v[j] as string) >= "0" && (v[j] as string) <= "9") j++;
      out.push(Number(v.slice(i, j)));
    } else if (/[A-Za-z]/.test(c)) {
      while (j < v.length && /[A-Za-z]/.test(v[j] as string)) j++;
      out.push(v.slice(i, j).toLowerCase());
    } else j++;
    i = j;
  }
  return out;
}

/** Words that mark a release, not a pre-release: `2.14.1.Final`, `1.0.RELEASE`, `32.1.2-jre`. */
const RELEASE_WORDS = new Set(["final", "release", "ga", "jre", "android"]);

/** Negative when a comes before b, positive after, 0 when the same; refuses nothing. */
export function compareVersions(a: string, b: string): number {
  const pa = pieces(a).filter((p) => typeof p === "number" || !RELEASE_WORDS.has(p));
  const pb = pieces(b).filter((p) => typeof p === "number" || !RELEASE_WORDS.has(p));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    // the end of one: a word after it is a pre-release (1.0 > 1.0rc1), a number a later release (1.0 < 1.0.1)
    if (x === undefined) return typeof y === "string" ? 1 : -1;
    if (y === undefined) return typeof x === "string" ? -1 : 1;
    if (typeof x === "number" && typeof y === "number") return x - y;
    if (typeof x === "number") return 1; // 1.0.1 after 1.0.beta
    if (typeof y === "number") return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}
