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

/** Query parameters that carry a credential. */
const TOKEN_PARAMS =
  "token|access_token|refresh_token|id_token|api_key|apikey|api-key|key|sig|signature|password|passwd|pwd|secret|client_secret|auth|session|sessionid|x-amz-signature|x-amz-credential|x-amz-security-token";
/** Headers that carry a credential. */
const CREDENTIAL_HEADERS =
  "authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|x-csrf-token|x-amz-security-token|private-token|x-vault-token";

/**
 * URL userinfo, its slashes as JSON may escape them too
 * (`https:\/\/user:pass@host`). A scheme is at most 32 characters
 * (`git+ssh`, `postgresql`): unbounded, a text like `a.a.a.a…` that an agent
 * can have echoed back (a path it sent) would be scanned to its end from
 * every dot, in time that grows with the square of its length.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:(?:\/|\\\/){2})([^\s/@"'<>]+)@/gi;
const QUERY_TOKEN = new RegExp(`([?&;#](?:${TOKEN_PARAMS})=)[^&;#\\s"'<>]*`, "gi");
/**
 * Keys that, as `key: value` or `"key": "value"`, all but always hold a
 * literal secret. Generic words (key, session, auth, secret, token) are not
 * among them: as names in code and config they would turn a file an agent
 * reads, edits and writes back into one full of masks.
 */
const SECRET_KEYS = "access_token|refresh_token|id_token|client_secret";
/**
 * A credential header or key and its value. The key may be quoted either way
 * and indexed, as code sets a header (`{'Authorization': ...}`,
 * `headers["Authorization"] = ...`). A quoted value ends at its closing
 * quote (JSON); a bare one runs to the end of the line, so a cookie's second
 * pair or a digest's `response="..."` after a comma is not left showing.
 * Whitespace alone is no value: the value is what follows it, on a later line.
 */
const HEADER_LINE = new RegExp(
  `(^|[\\n\\r{,"'\\s])((?:${CREDENTIAL_HEADERS}|${SECRET_KEYS})["']?\\]?\\s*[:=]\\s*)("(?:[^"\\\\\\n\\r]|\\\\.)*"?|'[^'\\n\\r]*'?|\\S[^\\n\\r]*)`,
  "gi",
);
/**
 * A credential given to a command as a flag (`--password=x`, `--token x`), as
 * a process listing shows it. Only names that hold nothing but a secret.
 */
const SECRET_FLAGS =
  "password|passwd|token|access-token|access_token|api-key|api_key|apikey|client-secret|client_secret";
const FLAG = new RegExp(`((?:^|\\s)--?(?:${SECRET_FLAGS})(?:=|[ \\t]+))(?!-)[^\\s"'<>]+`, "gi");
/**
 * A user and password given as one flag (`curl -u alice:secret`,
 * `--user=alice:secret`, `--proxy-user`): the part after the first `:` is the
 * password.
 */
const USER_FLAG = /((?:^|\s)(?:-u|--user|--proxy-user)(?:=|[ \t]+)(?!-)[^\s:"'<>]*:)[^\s"'<>]+/g;
/**
 * A run of base64url segments joined by dots, where a JSON Web Token may
 * stand: each run is tried once, from its first character only (hence the
 * lookbehind), and looked through by `maskJwts`. The single pattern this replaces,
 * `\beyJ[A-Za-z0-9_-]{2,}\.eyJ…`, started again at every `-eyJ` of a run
 * that holds no dot and scanned to its end each time: 256 KB of `eyJ-` that
 * an agent sent held the server for 8 s, in time that grew with its square.
 */
const DOTTED_RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)+/g;
/** A token's claims: a whole segment, base64url JSON (`eyJ`) and at least two more characters. */
const JWT_CLAIMS = /^eyJ[A-Za-z0-9_-]{2,}$/;
/** rta's own bearer tokens (rta_ and 32 random bytes in base64url), wherever they stand. */
const RTA_TOKEN = /\brta_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/**
 * An age identity (`AGE-SECRET-KEY-1…`, a plugin's `AGE-PLUGIN-NAME-1…`), the
 * kind of key RTA_KV_IDENTITY names: the file is withheld, a copy of its key
 * anywhere else is masked.
 */
const AGE_IDENTITY = /\bAGE-(?:SECRET-KEY|PLUGIN-[A-Z0-9]+)-1[0-9A-Z]+/g;
const CREDENTIAL_KEY = new RegExp(`^(?:${CREDENTIAL_HEADERS}|${TOKEN_PARAMS})$`, "i");

export const MASK = "***";

/**
 * Masks private keys (PEM), URL userinfo, token parameters, credential headers
 * and keys, credential flags, JSON Web Tokens, rta's tokens and age
 * identities in a text.
 */
export function maskSecrets(text: string): string {
  if (!/[:@=-]|rta_|eyJ/.test(text)) return text;
  return maskPrivateKeys(text)
    .replace(USERINFO, (_, scheme: string) => `${scheme}${MASK}@`)
    .replace(QUERY_TOKEN, (_, name: string) => `${name}${MASK}`)
    .replace(HEADER_LINE, (_, lead: string, name: string, value: string) => `${lead}${name}${quotedMask(value)}`)
    .replace(FLAG, (_, flag: string) => `${flag}${MASK}`)
    .replace(USER_FLAG, (_, user: string) => `${user}${MASK}`)
    .replace(DOTTED_RUN, maskJwts)
    .replace(RTA_TOKEN, MASK)
    .replace(AGE_IDENTITY, MASK);
}

/** A PEM private key's armour (`-----BEGIN OPENSSH PRIVATE KEY-----`, its END): what stands between is the key. */
const KEY_ARMOUR = /-----(BEGIN|END) [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
/** What a text's part is masked after when it stands inside a private key (see maskSecretsAfter). */
const KEY_OPEN = "-----BEGIN PRIVATE KEY-----\n";

/**
 * The body of each PEM private key masked, its armour kept: a key with no END
 * (cut short, or a part of a text that ends inside one) is masked to the
 * text's end. Linear: each armour is found once.
 */
function maskPrivateKeys(text: string): string {
  if (!text.includes("PRIVATE KEY-----")) return text;
  let out = "";
  let at = 0;
  let body = -1; // where the open key's body starts
  const masked = (from: number, to: number) => {
    const b = text.slice(from, to);
    if (!/\S/.test(b)) return b;
    return `${b.startsWith("\n") ? "\n" : ""}${MASK}${b.endsWith("\n") ? "\n" : ""}`;
  };
  for (const m of text.matchAll(KEY_ARMOUR)) {
    if (m[1] === "BEGIN") {
      if (body === -1) body = m.index + m[0].length;
      continue;
    }
    if (body === -1) continue;
    out += text.slice(at, body) + masked(body, m.index);
    at = m.index;
    body = -1;
  }
  if (body !== -1) return out + text.slice(at, body) + masked(body, text.length);
  return out + text.slice(at);
}

/** Whether a text ends inside a private key: its last armour is a BEGIN. */
function insideKey(text: string): boolean {
  let inside = false;
  for (const m of text.matchAll(KEY_ARMOUR)) inside = m[1] === "BEGIN";
  return inside;
}

/**
 * The JSON Web Tokens in one dotted run masked, as `\beyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*`
 * would mask them, in time linear in the run: a token's header starts at a
 * word boundary inside a segment (the segment's start, or after a `-`) with
 * `eyJ` and two more characters to the segment's end; the next segment is its
 * claims; the one after, possibly empty, its signature.
 */
function maskJwts(run: string): string {
  if (!run.includes("eyJ")) return run;
  const segments = run.split(".");
  const out: string[] = [];
  let i = 0;
  while (i < segments.length) {
    const header = segments[i] as string;
    const at = i + 2 < segments.length && JWT_CLAIMS.test(segments[i + 1] as string) ? jwtHeaderAt(header) : -1;
    if (at === -1) {
      out.push(header);
      i++;
      continue;
    }
    out.push(`${header.slice(0, at)}${MASK}`);
    i += 3;
  }
  return out.join(".");
}

/** Where in a segment a token's header begins (`eyJ` at a word boundary, two characters after it at least), or -1. */
function jwtHeaderAt(segment: string): number {
  for (let at = segment.indexOf("eyJ"); at !== -1 && segment.length - at >= 5; at = segment.indexOf("eyJ", at + 1)) {
    if (at === 0 || segment[at - 1] === "-") return at;
  }
  return -1;
}

/**
 * Whether a window cut out of a longer text starts or ends inside a
 * credential: masked with its neighbours (`lead`, the text before it on its
 * line; `trail`, the text after it on its line) it reads otherwise than masked
 * alone. A window that begins at `ation: Bearer ...` or ends at
 * `https://user:pass` (before the `@`) would be shown with the secret in it;
 * such a window is to be widened to whole lines, so it is masked as a whole
 * read of the file would be.
 */
export function cutsACredential(lead: string, window: string, trail: string): boolean {
  if (lead === "" && trail === "") return false;
  return maskSecrets(lead + window + trail) !== maskSecrets(lead) + maskSecrets(window) + maskSecrets(trail);
}

/**
 * How much of the end of a line is looked at for a credential's name whose
 * value stands on a later line: a name, its quote, its `:` or `=`, and the
 * whitespace around them, with room to spare.
 */
export const LINE_CONTEXT_CHARS = 256;
/** A credential's name at the end of a text, with the lead a name needs before it (or the text's start). */
/** A credential's name with its quote and the character before it fit in this many: the longest is 20. */
const NAME_TAIL_CHARS = 32;
const NAME_AT_END = new RegExp(`(?:^|[\\n\\r{,"'\\s])((?:${CREDENTIAL_HEADERS}|${SECRET_KEYS})["']?\\]?)$`, "i");

/**
 * The end of `before` from a credential's name whose value has not come yet
 * (`authorization:` ending a line, `"access_token"` with its `:` still to
 * come), or "" when there is none. A whole text masks the value that follows
 * such a name on a later line (`HEADER_LINE` lets whitespace, newlines
 * included, stand around the `:`), so a part of the text that starts after
 * the name is masked with it. Looks at the whitespace and the separator
 * ending `before` and at most NAME_TAIL_CHARS before them, so its cost does
 * not grow with `before`.
 */
export function openCredential(before: string): string {
  let end = endOfWord(before, before.length);
  const last = before[end - 1];
  if (last === ":" || last === "=") end = endOfWord(before, end - 1);
  // a name ends in a letter, its quote or its index's `]`: most lines end otherwise, and are passed at once
  if (!/[A-Za-z"'\]]/.test(before[end - 1] ?? "")) return "";
  const m = NAME_AT_END.exec(before.slice(Math.max(0, end - NAME_TAIL_CHARS), end));
  return m ? before.slice(end - (m[1] as string).length) : "";
}

/** The index just past the last character before `end` that is not whitespace. */
function endOfWord(text: string, end: number): number {
  let at = end;
  while (at > 0 && /\s/.test(text[at - 1] as string)) at--;
  return at;
}

/**
 * A part of a longer text masked as it reads there: `before` is what stands
 * before it (its lines before, for a line), so a value whose credential's
 * name ends the line above is masked as a whole read would mask it. A part
 * whose masked form cannot be told from its context's is masked whole.
 */
export function maskSecretsAfter(before: string, text: string): string {
  // whitespace alone is no value: a whole read passes it by to the value that follows it
  if (!/\S/.test(text)) return text;
  const open = before.includes("PRIVATE KEY-----") && insideKey(before) ? KEY_OPEN : openCredential(before);
  if (open === "") return maskSecrets(text);
  const masked = maskSecrets(`${open}${text}`);
  return masked.startsWith(open) ? masked.slice(open.length) : MASK;
}

/**
 * A line cut short, without the run of characters at its cut when a
 * credential masked only whole may have begun there (URL userinfo before its
 * `@`, rta's own token, a JSON Web Token, an age identity): masked, its head
 * would be shown.
 * A value masked to its line's end (a header's, a parameter's, a flag's) is
 * masked cut or not. The run ends at whitespace, a quote or `<`/`>`, which
 * none of the three holds.
 */
export function cutAtWord(text: string): string {
  let at = text.length;
  while (at > 0 && !/[\s"'<>]/.test(text[at - 1] as string)) at--;
  const run = text.slice(at);
  const m = MASKED_WHOLE.exec(run);
  if (m === null) return text;
  // the run is cut where the first such credential may begin: a URL at its scheme
  let start = m.index;
  if (m[0].startsWith(":"))
    while (start > 0 && m.index - start < MAX_SCHEME_CHARS && /[A-Za-z0-9+.-]/.test(run[start - 1] as string)) start--;
  return text.slice(0, at + start);
}

/** What begins each credential masked only whole: a URL's `://`, a token's header, rta's token prefix, an age identity's. */
const MASKED_WHOLE = /:\\?\/\\?\/|eyJ|rta_|AGE-/;
/** A URL's scheme is at most this long (USERINFO's bound). */
const MAX_SCHEME_CHARS = 32;

/**
 * The end of text[from, to) as LinesBefore needs it: its last
 * LINE_CONTEXT_CHARS before its trailing whitespace, which is kept as one
 * space. A name's value may stand on the next line however much whitespace
 * ends the name's line, so the end is taken before it.
 */
export function lineEnd(text: string, from = 0, to = text.length): string {
  const end = Math.max(from, endOfWord(text, to));
  const body = text.slice(Math.max(from, end - LINE_CONTEXT_CHARS), end);
  return end < to ? `${body} ` : body;
}

/**
 * The lines before the one being read, as far as masking it depends on them:
 * the ends of the last two that are not blank (a name may stand on one, its
 * `:` alone on the next). Blank lines are whitespace, which a credential's
 * name and value may have between them, and are passed by.
 */
export class LinesBefore {
  private earlier = "";
  private last = "";
  private inKey = false;
  private joined: string | undefined = "\n\n";

  /** The next line read, or its end (its last LINE_CONTEXT_CHARS are enough). */
  add(line: string): void {
    const end = endOfWord(line, line.length);
    if (end === 0) return;
    this.earlier = this.last;
    this.last = line.slice(Math.max(0, end - LINE_CONTEXT_CHARS), end);
    // a private key's lines are many: whether one is open is remembered past the two lines kept
    if (this.last.includes("PRIVATE KEY-----")) this.inKey = insideKey(this.last);
    this.joined = undefined;
  }

  /** The lines, joined, each ending in a newline; inside a private key, after its armour. */
  text(): string {
    this.joined ??= `${this.inKey ? KEY_OPEN : ""}${this.earlier}\n${this.last}\n`;
    return this.joined;
  }
}

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

/** A masked value keeps the quotes it stood in, so a JSON text stays JSON. */
function quotedMask(value: string): string {
  const q = value[0];
  if (q !== '"' && q !== "'") return MASK;
  return value.length > 1 && value.endsWith(q) ? `${q}${MASK}${q}` : `${q}${MASK}`;
}

/** Characters that continue a path name: a place is replaced only where none stands on either side of it. */
const PATH_CHAR = "[\\w.~-]";

function escapeRegExp(s: string): string {
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

  /** Each place may have several spellings (as configured, and its real path). Longer spellings are tried first. */
  constructor(places: Places) {
    const named: [string, string][] = [
      ...(places.identity ?? []).map((p): [string, string] => [p, "<identity file>"]),
      ...places.data.map((p): [string, string] => [p, "<data dir>"]),
      ...places.config.map((p): [string, string] => [p, "<config dir>"]),
      ...(places.roots ?? []).flatMap((spellings, i) => spellings.map((p): [string, string] => [p, `<root ${i + 1}>`])),
    ]
      .filter(([p]) => p.length > 1)
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
  }

  /**
   * A text as an agent may see it; `kept` are strings the agent sent. A kept
   * string that names a place is left as it was (with any secret in it
   * masked); nothing the agent sent keeps a secret in the clear. Only a kept
   * string that renaming places would change is guarded: guarding every
   * short argument would switch redaction off around it.
   */
  text(text: string, kept: readonly string[] = []): string {
    return this.guardedText(text, this.worthGuarding(kept));
  }

  /**
   * A part of a longer text (a line of a file, a range of one) as an agent is
   * shown it, before any of its own words are set aside: masked as it reads
   * after `before` (see maskSecretsAfter), its places renamed. What picks
   * lines for an agent (a pattern, a filter) is matched on this, so whether a
   * line is picked depends on nothing the agent is not shown: neither a
   * secret nor where rta keeps its data.
   */
  shown(text: string, before = ""): string {
    return text === "" ? text : this.renamePlaces(maskSecretsAfter(before, text));
  }

  /** The kept strings, masked, that renaming places would change: worked out once per call, not once per string. */
  private worthGuarding(kept: readonly string[]): string[] {
    return [...new Set(kept.filter((k) => k.length > 0).map(maskSecrets))].filter((k) => this.renamePlaces(k) !== k);
  }

  /** Secrets first, over the whole text; then places, around the agent's own words. */
  private guardedText(text: string, guarded: readonly string[]): string {
    if (text === "") return text;
    const masked = maskSecrets(text);
    const g = guard(masked, guarded);
    return g.restore(this.renamePlaces(g.text));
  }

  private renamePlaces(text: string): string {
    let out = text;
    // a plain search first: most texts (every line of a search) name no place, and it costs a fraction of the pattern
    for (const [spelling, re, label] of this.places) if (out.includes(spelling)) out = out.replace(re, label);
    return out;
  }

  /**
   * Every string in a value (a result), keys included, redacted; values under
   * a credential's key are masked whole. A key is set as an own property, so
   * one named `__proto__` stays a key and sets no prototype.
   */
  value<T>(value: T, kept: readonly string[] = []): T {
    const guarded = this.worthGuarding(kept);
    const walk = (v: unknown, key?: string): unknown => {
      if (typeof v === "string")
        return key !== undefined && CREDENTIAL_KEY.test(key) ? MASK : this.guardedText(v, guarded);
      if (Array.isArray(v)) return v.map((x) => walk(x));
      if (v !== null && typeof v === "object") {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) {
          const value = walk(x, k);
          Object.defineProperty(out, this.guardedText(k, guarded), {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return out;
      }
      return v;
    };
    return walk(value) as T;
  }
}

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
