/**
 * What an agent is told, and what the record keeps, with the places and the
 * secrets taken out.
 *
 * - rta's data dir reads as `<data dir>`, its config dir as `<config dir>`
 *   and the file RTA_KV_IDENTITY names as `<identity file>`, only where each
 *   stands as a path of its own: a data dir of /data rewrites /data/x but not
 *   /database or /srv/data/x.
 * - A path the agent sent is its own and is left as it was.
 * - URL userinfo, token-bearing query parameters, credential headers and keys,
 *   credential flags on a command line and bare JSON Web Tokens are masked
 *   wherever they appear, the agent's own words included: what it sent
 *   may name a place it knows, but a credential is masked before any of its
 *   words are set aside, so a pattern that spells half a header (`Authorization: B`)
 *   cannot shield the other half. The record gets this masking too, and keeps
 *   the places, since the record is the person's.
 */
import { copiedEntries, type Entries, plain, sameOrCopied, sameOrCopiedEntries } from "./copyOnWrite.ts";
import { CREDENTIAL_KEY, MASK, maskSecrets, maskSecretsAfter } from "./secrets.ts";

/** The words inside the labels redaction writes for places; a root's is `<root N>`, for any N. */
const LABEL_WORDS = ["data dir", "config dir", "identity file"];

/**
 * Whether a word may stand in a text as shown and not in the text itself: it
 * overlaps a label redaction writes (`***`, `<data dir>`, `<root 12>`). One
 * that holds a label, or begins or ends inside one, holds `*`, `<` or `>`
 * (every label begins and ends so); one that is part of a label is part of
 * its words, or of `root N`. Compared without regard to case.
 */
export function mayBeWrittenByRedaction(word: string): boolean {
  const w = word.toLowerCase();
  if (/[*<>]/.test(w) || LABEL_WORDS.some((l) => l.includes(w))) return true;
  // part of "root N": a piece of "root " then digits, where digits follow only the piece that ends it
  const m = /^(\D*)(\d*)$/.exec(w);
  return m !== null && (m[2] === "" ? "root ".includes(m[1] as string) : "root ".endsWith(m[1] as string));
}

/** Characters that continue a path name: a place is replaced only where none stands on either side of it. */
const PATH_CHAR = "[\\w.~-]";
const PATH_CHAR_RE = new RegExp(PATH_CHAR);

/** The text as a regular expression that matches it literally. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export interface Places {
  data: string[];
  config: string[];
  identity?: string[];
  /**
   * A remote server's roots, each with its spellings (as given, its real
   * path): named to no one it serves over the network. The first is
   * `<root 1>`, the next `<root 2>`, in the order the server took them.
   */
  roots?: string[][];
}

export class Redactor {
  /** Each spelling of a place, the pattern that finds it standing alone, and its label. */
  private readonly places: [string, RegExp, string][];
  /** whether every spelling holds a slash */
  private readonly slashed: boolean;
  /**
   * Each result key seen: whether it names a credential, and how it reads
   * masked when it names no place (else undefined: it depends on what the
   * agent sent). Both depend on the key and the places alone, which never
   * change, and a result's keys are the same call after call.
   */
  private readonly keys = new Map<string, { credential: boolean; shown: string | undefined }>();
  /** Short strings of results (a host's name, a kernel's release) masked, for those that name no place. */
  private readonly shorts = new Map<string, string>();

  /** Each place may have several spellings (as configured, and its real path). Longer spellings are tried first. */
  constructor(places: Places) {
    const named: [string, string][] = [
      ...(places.identity ?? []).map((p): [string, string] => [p, "<identity file>"]),
      ...places.data.map((p): [string, string] => [p, "<data dir>"]),
      ...places.config.map((p): [string, string] => [p, "<config dir>"]),
      ...(places.roots ?? []).flatMap((spellings, i) => spellings.map((p): [string, string] => [p, `<root ${i + 1}>`])),
    ]
      .filter(([p]) => p.length > 1)
      // a hint's command quotes a path for the shell (`chmod 600 '/home/o'\''brien/id.txt'`): spelled so too
      .flatMap(([p, label]): [string, string][] =>
        p.includes("'")
          ? [
              [p, label],
              [p.replaceAll("'", "'\\''"), label],
            ]
          : [[p, label]],
      )
      // JSON may escape a slash (`"dir":"\/var\/lib\/rta"`, as PHP writes it): the place is spelled so too
      .flatMap(([p, label]): [string, string][] =>
        p.includes("/")
          ? [
              [p, label],
              [p.replaceAll("/", "\\/"), label],
            ]
          : [[p, label]],
      );
    named.sort((a, b) => b[0].length - a[0].length);
    this.places = named.map(([p, label]) => {
      const spelling = p.replace(/\/+$/, "");
      return [spelling, new RegExp(`(?<!${PATH_CHAR})${escapeRegExp(spelling)}(?![\\w~-]|\\.[\\w~-])`, "g"), label];
    });
    this.slashed = this.places.every(([spelling]) => spelling.includes("/"));
  }

  /**
   * A text as an agent may see it; `kept` are strings the agent sent. A kept
   * string that names a place is left as it was (with any secret in it
   * masked); nothing the agent sent keeps a secret in the clear. Only a kept
   * string that renaming places would change is guarded: guarding every
   * short argument would switch redaction off around it.
   */
  text(text: string, kept: Kept = []): string {
    return this.guardedText(text, this.guardsOf(kept));
  }

  /**
   * A part of a longer text (a line of a file, a range of one) as an agent is
   * shown it, before any of its own words are set aside: masked as it reads
   * after `before` (see maskSecretsAfter), its places renamed. What picks
   * lines for an agent (a pattern, a filter) is matched on this, so whether a
   * line is picked depends on nothing the agent is not shown: neither a
   * secret nor where rta keeps its data.
   */
  shown(text: string, before = "", cut = false): string {
    if (text === "") return text;
    const out = this.renamePlaces(maskSecretsAfter(before, text));
    return cut ? this.withoutPlaceHead(out) : out;
  }

  /**
   * A text cut short at its end, without a run at its end that begins one of
   * the places standing alone: a place is renamed only whole, so a line cut
   * inside `/var/lib/rta` would show `/var/li`.
   */
  private withoutPlaceHead(text: string): string {
    let cut = text.length;
    for (const [spelling] of this.places) {
      for (let n = Math.min(spelling.length - 1, text.length); n > 0; n--) {
        const at = text.length - n;
        if (at >= cut) break;
        if (text.endsWith(spelling.slice(0, n)) && (at === 0 || !PATH_CHAR_RE.test(text[at - 1] as string))) {
          cut = at;
          break;
        }
      }
    }
    return text.slice(0, cut);
  }

  /**
   * The kept strings, masked, that renaming places would change, worked out
   * at most once per call and only when a text names a place: most results
   * name none, and then what the agent sent cannot matter.
   */
  private guardsOf(kept: Kept): () => readonly string[] {
    let guarded: readonly string[] | undefined;
    return () => {
      if (guarded === undefined) {
        const sent = typeof kept === "function" ? kept() : kept;
        guarded = [...new Set(sent.filter((k) => k.length > 0).map(maskSecrets))].filter(
          (k) => this.renamePlaces(k) !== k,
        );
      }
      return guarded;
    };
  }

  /**
   * Secrets first, over the whole text; then places, around the agent's own words. A masked text that
   * holds no place's spelling is done: guarding swaps words for markers, which takes text from a spelling.
   */
  private guardedText(text: string, guards: () => readonly string[]): string {
    if (text === "") return text;
    const masked = maskSecrets(text);
    return this.namesAPlace(masked) ? this.renamedAround(masked, guards) : masked;
  }

  /** A masked text that names a place with its places renamed, the agent's own words left as they are. */
  private renamedAround(masked: string, guards: () => readonly string[]): string {
    const guarded = guards();
    if (guarded.length === 0) return this.renamePlaces(masked);
    const g = guard(masked, guarded);
    return g.restore(this.renamePlaces(g.text));
  }

  /** Whether a text holds any place's spelling: the plain search renamePlaces starts each place with. */
  private namesAPlace(text: string): boolean {
    // every place is an absolute path: a text without a slash names none
    if (this.slashed && !text.includes("/")) return false;
    for (const [spelling] of this.places) if (text.includes(spelling)) return true;
    return false;
  }

  private renamePlaces(text: string): string {
    // every place is an absolute path: a text without a slash names none
    if (this.slashed && !text.includes("/")) return text;
    let out = text;
    // a plain search first: most texts (every line of a search) name no place, and it costs a fraction of the pattern
    for (const [spelling, re, label] of this.places) if (out.includes(spelling)) out = out.replace(re, label);
    return out;
  }

  /**
   * Every string in a value (a result), keys included, redacted; values under
   * a credential's key, each of a list's, are masked whole. A key is set as an own property, so
   * one named `__proto__` stays a key and sets no prototype. `kept` may be
   * given as a function, asked only if a string names a place.
   *
   * A plain object or array that redaction leaves as it was is given back
   * itself, not copied: building a copy of every result cost more than the
   * masking. Any other object (a class's) is copied as before, its own
   * enumerable keys alone.
   */
  value<T>(value: T, kept: Kept = []): T {
    const guards = this.guardsOf(kept);
    const name = (k: string): string => this.keyOf(k).shown ?? this.guardedText(k, guards);
    const walk = (v: unknown, key?: string): unknown => {
      if (typeof v === "string")
        return key !== undefined && this.keyOf(key).credential ? MASK : this.shortText(v, guards);
      if (Array.isArray(v)) return plain(v) ? sameOrCopied(v, (x) => walk(x, key)) : v.map((x) => walk(x, key));
      if (v !== null && typeof v === "object")
        return plain(v) ? sameOrCopiedEntries(v as Entries, name, walk) : copiedEntries(v as Entries, name, walk);
      return v;
    };
    return walk(value) as T;
  }

  /**
   * A string of a result as guardedText gives it; a short one that names no
   * place is kept as masked, since then it depends on nothing else. Kept
   * afresh once SHORTS_KEPT are: the strings a server's results repeat come back.
   */
  private shortText(text: string, guards: () => readonly string[]): string {
    if (text.length > SHORT_CHARS) return this.guardedText(text, guards);
    const known = this.shorts.get(text);
    if (known !== undefined) return known;
    const masked = maskSecrets(text);
    if (this.namesAPlace(masked)) return this.renamedAround(masked, guards);
    if (this.shorts.size >= SHORTS_KEPT) this.shorts.clear();
    this.shorts.set(text, masked);
    return masked;
  }

  /** What `keys` holds of a key, worked out and kept when it holds nothing yet (a long key is not kept). */
  private keyOf(key: string): { credential: boolean; shown: string | undefined } {
    let known = this.keys.get(key);
    if (known === undefined) {
      const masked = maskSecrets(key);
      known = { credential: CREDENTIAL_KEY.test(key), shown: this.namesAPlace(masked) ? undefined : masked };
      if (key.length <= KEPT_KEY_CHARS && this.keys.size < KEPT_KEYS) this.keys.set(key, known);
    }
    return known;
  }
}

/** How many keys a redactor keeps worked out, and how long each may be: a result's keys are few and short. */
const [KEPT_KEYS, KEPT_KEY_CHARS] = [4096, 128];
/** How many short strings a redactor keeps masked, and how long each may be. */
const [SHORTS_KEPT, SHORT_CHARS] = [1024, 64];

/** The strings an agent sent, or what gives them when first asked. */
export type Kept = readonly string[] | (() => readonly string[]);

/**
 * Swaps each kept string for a marker no redaction touches, and back: the
 * agent's own words are never rewritten, wherever they appear in a message.
 */
function guard(text: string, kept: readonly string[]): { text: string; restore: (s: string) => string } {
  const present = kept.filter((k) => k.length > 0 && text.includes(k)).sort((a, b) => b.length - a.length);
  // A text that already holds the marker's characters is left unguarded rather than restored wrongly.
  if (present.length === 0 || text.includes("\uE000")) return { text, restore: (s) => s };
  let out = text;
  present.forEach((k, i) => {
    out = out.split(k).join(`\uE000${i}\uE001`);
  });
  return {
    text: out,
    restore: (s) => s.replace(/\uE000(\d+)\uE001/g, (_, i: string) => present[Number(i)] as string),
  };
}
