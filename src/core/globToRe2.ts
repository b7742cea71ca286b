/**
 * A glob, translated to RE2 syntax for core/pattern, which compiles and
 * matches it (so matching a name is linear in the name).
 */

/** The glob as an RE2 pattern matching the same names; anchoring is the caller's. */
export function globToRe2(glob: string): string {
  return new GlobTranslator(glob).translate();
}

/**
 * Glob to RE2 in one pass, left to right. Braces are kept on a stack, so a `{`
 * that never closes costs no second reading (trying each `{` again as plain
 * text would be exponential in how many there are); it is made plain at the
 * end. Likewise, once a `[` never closes, every later `[` is plain without a
 * scan: the translation is linear in the glob, and so is each match.
 */
class GlobTranslator {
  /** by code point, so a character outside the BMP is one character, as it is to `?` */
  private readonly glob: string[];

  constructor(glob: string) {
    this.glob = Array.from(glob);
  }

  translate(): string {
    const g = this.glob;
    // each open brace: what came before it and its alternatives so far, innermost last
    const open: { before: string; alternatives: string[] }[] = [];
    let out = "";
    let setsClose = true;
    for (let i = 0; i < g.length; ) {
      const c = g[i] as string;
      const inner = open[open.length - 1];
      if (c === "\\") {
        out += plain(g[i + 1] ?? "\\");
        i += 2;
      } else if (c === "*") {
        while (g[i] === "*") i++;
        out += ".*";
      } else if (c === "?") {
        out += ".";
        i++;
      } else if (c === "[") {
        const set = setsClose ? this.set(i) : undefined;
        if (!set) setsClose = false;
        out += set ? set[0] : plain("[");
        i = set ? set[1] : i + 1;
      } else if (c === "{") {
        open.push({ before: out, alternatives: [] });
        out = "";
        i++;
      } else if (c === "," && inner) {
        inner.alternatives.push(out);
        out = "";
        i++;
      } else if (c === "}" && inner) {
        open.pop();
        out = `${inner.before}(?:${[...inner.alternatives, out].join("|")})`;
        i++;
      } else {
        out += plain(c);
        i++;
      }
    }
    // a brace that never closed is plain text, and so are its commas
    for (let f = open.pop(); f; f = open.pop())
      out = `${f.before}${plain("{")}${[...f.alternatives, out].join(plain(","))}`;
    return out;
  }

  /** `[...]` from the `[` at `i`: the class and the index past its `]`, or undefined if it never closes. */
  private set(i: number): [string, number] | undefined {
    const g = this.glob;
    let at = i + 1;
    let negated = false;
    if (g[at] === "!" || g[at] === "^") {
      negated = true;
      at++;
    }
    let body = "";
    let first = true;
    while (at < g.length) {
      let c = g[at] as string;
      if (c === "]" && !first) return [`[${negated ? "^" : ""}${body}]`, at + 1];
      first = false;
      if (c === "\\" && at + 1 < g.length) c = g[++at] as string;
      at++;
      body += codePoint(c);
      if (g[at] === "-" && at + 1 < g.length && g[at + 1] !== "]") {
        let to = g[at + 1] as string;
        at += 2;
        if (to === "\\" && at < g.length) to = g[at++] as string;
        body += `-${codePoint(to)}`;
      }
    }
    return undefined;
  }
}

/** One character as RE2 reads it plainly, anywhere (in a class too). */
function codePoint(c: string): string {
  return `\\x{${(c.codePointAt(0) as number).toString(16)}}`;
}

function plain(c: string): string {
  return /[A-Za-z0-9_]/.test(c) ? c : codePoint(c);
}
