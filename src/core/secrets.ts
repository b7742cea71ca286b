/**
 * The secrets taken out of what an agent is told and what the record keeps:
 * URL userinfo, token-bearing query parameters, credential headers and keys,
 * credential flags on a command line, bare JSON Web Tokens, rta's own tokens,
 * age identities and private keys. Each is masked wherever it appears, and a
 * line seen alone (by fs_grep, log_tail or a range of fs_read) is masked with
 * the lines before it as context, so a value on the line after its name is
 * masked too. Places (rta's dirs, a remote server's roots) are redact.ts's.
 */
import { insideKey, KEY_OPEN, keyOpenAfter, maskPrivateKeys } from "./privateKeys.ts";

/** Query parameters that carry a credential. */
const TOKEN_PARAMS =
  "token|access_token|refresh_token|id_token|api_key|apikey|api-key|key|sig|signature|password|passwd|pwd|secret|client_secret|auth|session|sessionid|x-amz-signature|x-amz-credential|x-amz-security-token";
/** Headers that carry a credential. */
const CREDENTIAL_HEADERS =
  "authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|x-csrf-token|x-amz-security-token|private-token|x-vault-token";

/**
 * URL userinfo, its slashes as JSON may escape them too
 * (`https:\/\/user:pass@host`), up to the last `@` before the host, as a
 * URL parser takes it: a password with a raw `@` in it is masked whole.
 * A scheme is at most 32 characters
 * (`git+ssh`, `postgresql`): unbounded, a text like `a.a.a.a…` that an agent
 * can have echoed back (a path it sent) would be scanned to its end from
 * every dot, in time that grows with the square of its length.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:(?:\/|\\\/){2})([^\s/?#"'<>]+)@/gi;
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
 * A name may begin a path's part too: fs_find and fs_grep show a file's path
 * beginning with the path the agent searched (`logs/Authorization: Bearer x`).
 */
const HEADER_LINE = new RegExp(
  `(^|[\\n\\r{,"'\\s/])((?:${CREDENTIAL_HEADERS}|${SECRET_KEYS})["']?\\]?\\s*[:=]\\s*)("(?:[^"\\\\\\n\\r]|\\\\.)*"?|'[^'\\n\\r]*'?|\\S[^\\n\\r]*)`,
  "gi",
);
/**
 * A credential given to a command as a flag (`--password=x`, `--token x`), as
 * a process listing shows it, or a file's name in a path (`logs/--token=x`).
 * Only names that hold nothing but a secret.
 */
const SECRET_FLAGS =
  "password|passwd|token|access-token|access_token|api-key|api_key|apikey|client-secret|client_secret";
const FLAG = new RegExp(`((?:^|[\\s/])--?(?:${SECRET_FLAGS})(?:=|[ \\t]+))(?!-)[^\\s"'<>]+`, "gi");
/**
 * A user and password given as one flag (`curl -u alice:secret`,
 * `--user=alice:secret`, `--proxy-user`): the part after the first `:` is the
 * password.
 */
const USER_FLAG = /((?:^|[\s/])(?:-u|--user|--proxy-user)(?:=|[ \t]+)(?!-)[^\s:"'<>]*:)[^\s"'<>]+/g;
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
export const CREDENTIAL_KEY = new RegExp(`^(?:${CREDENTIAL_HEADERS}|${TOKEN_PARAMS})$`, "i");

export const MASK = "***";

/**
 * Masks private keys (PEM), URL userinfo, token parameters, credential headers
 * and keys, credential flags, JSON Web Tokens, rta's tokens and age
 * identities in a text.
 */
export function maskSecrets(text: string): string {
  // Each pattern only where the one character or word it cannot match without is there: a plain search costs a
  // fraction of the pattern (a quarter of one pattern that looks for them all), and a mask ("***") adds none.
  if (!(hasAny(text, ":@=-") || text.includes("rta_") || text.includes("eyJ"))) return text;
  let out = maskPrivateKeys(text, MASK);
  if (out.includes("@")) out = out.replace(USERINFO, (_, scheme: string) => `${scheme}${MASK}@`);
  if (out.includes("=")) out = out.replace(QUERY_TOKEN, (_, name: string) => `${name}${MASK}`);
  if (out.includes(":") || out.includes("="))
    out = out.replace(
      HEADER_LINE,
      (_, lead: string, name: string, value: string) => `${lead}${name}${quotedMask(value)}`,
    );
  if (out.includes("-")) out = out.replace(FLAG, (_, flag: string) => `${flag}${MASK}`);
  // -u, --user and --proxy-user all hold "-u"
  if (out.includes("-u")) out = out.replace(USER_FLAG, (_, user: string) => `${user}${MASK}`);
  if (out.includes("eyJ")) out = out.replace(DOTTED_RUN, maskJwts);
  if (out.includes("rta_")) out = out.replace(RTA_TOKEN, MASK);
  if (out.includes("AGE-")) out = out.replace(AGE_IDENTITY, MASK);
  return out;
}

/** Whether `text` holds any of the characters of `chars`. */
function hasAny(text: string, chars: string): boolean {
  for (const c of chars) if (text.includes(c)) return true;
  return false;
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
/** A credential's name with its quote and the character before it fit in this many: the longest is 20. */
const NAME_TAIL_CHARS = 32;
/** A credential's name at the end of a text, with the lead a name needs before it (or the text's start). */
const NAME_AT_END = new RegExp(`(?:^|[\\n\\r{,"'\\s/])((?:${CREDENTIAL_HEADERS}|${SECRET_KEYS})["']?\\]?)$`, "i");

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
    this.inKey = keyOpenAfter(this.inKey, this.last);
    this.joined = undefined;
  }

  /** The lines, joined, each ending in a newline; inside a private key, after its armour. */
  text(): string {
    this.joined ??= `${this.inKey ? KEY_OPEN : ""}${this.earlier}\n${this.last}\n`;
    return this.joined;
  }
}

/** A masked value keeps the quotes it stood in, so a JSON text stays JSON. */
function quotedMask(value: string): string {
  const q = value[0];
  if (q !== '"' && q !== "'") return MASK;
  return value.length > 1 && value.endsWith(q) ? `${q}${MASK}${q}` : `${q}${MASK}`;
}
