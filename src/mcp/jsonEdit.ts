/**
 * One member set in a JSON or JSONC text, as an editor would: the object
 * under a top-level key gets `name: value`, and every other byte (comments,
 * order, spacing, trailing commas) stays where it was. What it cannot read
 * as an object it refuses; what it writes is checked by the caller against
 * the client's parser.
 */

type Tok = { kind: "{" | "}" | "[" | "]" | ":" | "," | "str" | "lit"; start: number; end: number; value?: string };

interface Member {
  key: string;
  keyStart: number;
  value: Value;
  /** the `,` after the value, if there is one */
  comma?: number;
}

type Value =
  | { kind: "object"; start: number; end: number; members: Member[] }
  | { kind: "other"; start: number; end: number };

/**
 * A client's config nests a few levels; the reader below recurses once a
 * level and would run out of stack some ten thousand levels down, so a text
 * nested deeper than this is refused as one it cannot read.
 */
export const JSON_EDIT_DEPTH_LIMIT = 1000;

/** A text this module cannot read: the caller says it as core.config.unreadable. */
export class NotJson extends Error {}

function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c) || c === "\uFEFF") {
      i++;
    } else if (text.startsWith("//", i)) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith("/*", i)) {
      const close = text.indexOf("*/", i + 2);
      if (close < 0) throw new NotJson("a /* comment is never closed");
      i = close + 2;
    } else if ("{}[]:,".includes(c)) {
      out.push({ kind: c as Tok["kind"], start: i, end: i + 1 });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (j >= text.length) throw new NotJson("a string is never closed");
      out.push({ kind: "str", start: i, end: j + 1, value: stringAt(text.slice(i, j + 1)) });
      i = j + 1;
    } else {
      const m = /^[^\s{}[\]:,"/]+/.exec(text.slice(i));
      if (!m) throw new NotJson(`unexpected ${JSON.stringify(c)}`);
      out.push({ kind: "lit", start: i, end: i + m[0].length });
      i += m[0].length;
    }
  }
  return out;
}

function stringAt(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    throw new NotJson(`${literal.slice(0, 40)} is not a JSON string`);
  }
}

function parseValue(toks: Tok[], at: number, depth = 0): [Value, number] {
  const t = toks[at];
  if (!t) throw new NotJson("the text ends where a value was expected");
  if (depth >= JSON_EDIT_DEPTH_LIMIT) throw new NotJson(`nested deeper than ${JSON_EDIT_DEPTH_LIMIT} levels`);
  if (t.kind === "{") {
    const members: Member[] = [];
    let i = at + 1;
    for (;;) {
      const k = toks[i];
      if (k?.kind === "}") return [{ kind: "object", start: t.start, end: k.end, members }, i + 1];
      if (k?.kind !== "str" || toks[i + 1]?.kind !== ":") throw new NotJson('an object member is not `"name": value`');
      const [value, next] = parseValue(toks, i + 2, depth + 1);
      const member: Member = { key: k.value as string, keyStart: k.start, value };
      members.push(member);
      i = next;
      if (toks[i]?.kind === ",") {
        member.comma = toks[i]?.start;
        i++;
      } else if (toks[i]?.kind !== "}") throw new NotJson("an object's members are not separated by commas");
    }
  }
  if (t.kind === "[") {
    let i = at + 1;
    while (toks[i]?.kind !== "]") {
      if (!toks[i]) throw new NotJson("an array is never closed");
      [, i] = parseValue(toks, i, depth + 1);
      if (toks[i]?.kind === ",") i++;
      else if (toks[i]?.kind !== "]") throw new NotJson("an array's items are not separated by commas");
    }
    return [{ kind: "other", start: t.start, end: (toks[i] as Tok).end }, i + 1];
  }
  if (t.kind === "str" || t.kind === "lit") return [{ kind: "other", start: t.start, end: t.end }, at + 1];
  throw new NotJson(`unexpected ${JSON.stringify(t.kind)}`);
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function indentAt(text: string, at: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, at)))?.[0] ?? "";
}

function render(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replaceAll("\n", `\n${indent}`);
}

/** Whether only blanks stand between the start of `at`'s line and `at`. */
function ownLine(text: string, at: number): boolean {
  return text.slice(lineStart(text, at), at).trim() === "";
}

function insertMember(text: string, obj: Extract<Value, { kind: "object" }>, key: string, value: unknown): string {
  const close = obj.end - 1;
  const last = obj.members.at(-1);
  if (!text.slice(obj.start, obj.end).includes("\n") && obj.members.length > 0) {
    // an object written on one line stays on one line
    const sep = last?.comma === undefined ? ", " : " ";
    const at = last?.comma === undefined ? (last as Member).value.end : close;
    return `${text.slice(0, at)}${sep}${JSON.stringify(key)}: ${JSON.stringify(value)}${text.slice(at)}`;
  }
  const indent = obj.members[0] ? indentAt(text, obj.members[0].keyStart) : `${indentAt(text, obj.start)}  `;
  const entry = `${JSON.stringify(key)}: ${render(value, indent)}`;
  let out = text;
  let shift = 0;
  if (last && last.comma === undefined) {
    out = `${out.slice(0, last.value.end)},${out.slice(last.value.end)}`;
    shift = 1;
  }
  const at = close + shift;
  if (ownLine(out, at) && lineStart(out, at) > obj.start) {
    const ls = lineStart(out, at);
    return `${out.slice(0, ls)}${indent}${entry}\n${out.slice(ls)}`;
  }
  const closeIndent = indentAt(out, obj.start);
  return `${out.slice(0, at).trimEnd()}\n${indent}${entry}\n${closeIndent}${out.slice(at)}`;
}

/**
 * The text with `outer.inner` set to `value` in its top-level object: the
 * member replaced where it stands, else added as the object's last, the
 * outer object made if it is missing. A blank text becomes a new document.
 * Refuses (NotJson) a text that is no object at the top, or whose `outer`
 * is no object.
 */
export function setNested(text: string, outer: string, inner: string, value: unknown): string {
  const toks = tokens(text);
  if (toks.length === 0) {
    const fresh = `${JSON.stringify({ [outer]: { [inner]: value } }, null, 2)}\n`;
    return text.trim() === "" ? fresh : `${text.trimEnd()}\n${fresh}`;
  }
  const [top, next] = parseValue(toks, 0);
  if (top.kind !== "object") throw new NotJson("the file is not a JSON object");
  if (next !== toks.length) throw new NotJson("there is more after the JSON object");
  const container = top.members.filter((m) => m.key === outer).at(-1);
  if (!container) return insertMember(text, top, outer, { [inner]: value });
  if (container.value.kind !== "object") throw new NotJson(`its "${outer}" is not an object`);
  const existing = container.value.members.filter((m) => m.key === inner).at(-1);
  if (!existing) return insertMember(text, container.value, inner, value);
  const v = existing.value;
  return `${text.slice(0, v.start)}${render(value, indentAt(text, existing.keyStart))}${text.slice(v.end)}`;
}
