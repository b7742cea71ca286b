/**
 * An action's pipeline for goTemplate.ts: `$x := a b | c (d .e)`. Takes
 * strings ("…" with Go's escapes, and `…`), ints, floats, true, false, nil,
 * fields (.a.b, $.a, $v.a), variables, function names and parentheses;
 * anything else (a char, a method call on a parenthesised value, a comma
 * outside range's variables) is refused.
 */
/** A template, or a value, the renderer will not take. */
export class TemplateError extends Error {}

export type Arg =
  | { kind: "string"; value: string }
  | { kind: "int"; value: bigint }
  | { kind: "float"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "nil" }
  | { kind: "field"; base: string; path: string[] }
  | { kind: "ident"; name: string }
  | { kind: "pipe"; pipe: Pipeline };

export interface Pipeline {
  decl?: { name: string; op: ":=" | "=" };
  cmds: Arg[][];
}

type Token = { t: "arg"; arg: Arg } | { t: "(" | ")" | "|" };

function tokens(src: string, at: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const rest = src.slice(i);
    const space = rest.match(/^\s+/);
    if (space) {
      i += space[0].length;
      continue;
    }
    const c = src[i] as string;
    if (c === "(" || c === ")" || c === "|") {
      out.push({ t: c });
      i++;
      continue;
    }
    let m = rest.match(/^"(?:[^"\\]|\\.)*"/);
    if (m) {
      out.push({ t: "arg", arg: { kind: "string", value: JSON.parse(m[0]) as string } });
      i += m[0].length;
      continue;
    }
    m = rest.match(/^`[^`]*`/);
    if (m) {
      out.push({ t: "arg", arg: { kind: "string", value: m[0].slice(1, -1) } });
      i += m[0].length;
      continue;
    }
    m = rest.match(/^-?\d+(\.\d+)?(?![\w.])/);
    if (m) {
      const arg: Arg = m[1] ? { kind: "float", value: Number(m[0]) } : { kind: "int", value: BigInt(m[0]) };
      out.push({ t: "arg", arg });
      i += m[0].length;
      continue;
    }
    m = rest.match(/^(\$\w*|\.)?((?:\.\w+)*)(?![\w$])/);
    if (m && m[0] !== "" && (m[1] !== undefined || m[2] !== "")) {
      const base = m[1] === undefined || m[1] === "." ? "." : m[1];
      const path = (m[2] as string).split(".").filter(Boolean);
      out.push({ t: "arg", arg: { kind: "field", base, path } });
      i += m[0].length;
      continue;
    }
    m = rest.match(/^[A-Za-z_]\w*/);
    if (m) {
      const w = m[0];
      const arg: Arg =
        w === "true" || w === "false"
          ? { kind: "bool", value: w === "true" }
          : w === "nil"
            ? { kind: "nil" }
            : { kind: "ident", name: w };
      out.push({ t: "arg", arg });
      i += w.length;
      continue;
    }
    throw new TemplateError(`${at}: can't read ${JSON.stringify(rest.slice(0, 20))} in an action`);
  }
  return out;
}

/** Parses one action's text (no braces, no keyword) into a pipeline. */
export function parseAction(src: string, at: string): Pipeline {
  const decl = src.match(/^(\$\w+)\s*(:=|=)(?!=)\s*/);
  const body = decl ? src.slice(decl[0].length) : src;
  const toks = tokens(body, at);
  const [pipe, next] = pipeline(toks, 0, at);
  if (next !== toks.length) throw new TemplateError(`${at}: unexpected ${toks[next]?.t} in an action`);
  if (decl) pipe.decl = { name: decl[1] as string, op: decl[2] as ":=" | "=" };
  return pipe;
}

function pipeline(toks: Token[], from: number, at: string): [Pipeline, number] {
  const cmds: Arg[][] = [];
  let cmd: Arg[] = [];
  let i = from;
  for (; i < toks.length; i++) {
    const tok = toks[i] as Token;
    if (tok.t === ")") break;
    if (tok.t === "|") {
      if (cmd.length === 0) throw new TemplateError(`${at}: empty command in a pipeline`);
      cmds.push(cmd);
      cmd = [];
    } else if (tok.t === "(") {
      const [inner, end] = pipeline(toks, i + 1, at);
      if (toks[end]?.t !== ")") throw new TemplateError(`${at}: unclosed (`);
      const after = toks[end + 1];
      if (after?.t === "arg" && after.arg.kind === "field")
        throw new TemplateError(`${at}: a field of a parenthesised value is not in the subset`);
      cmd.push({ kind: "pipe", pipe: inner });
      i = end;
    } else if (tok.t === "arg") cmd.push(tok.arg);
  }
  if (cmd.length === 0) throw new TemplateError(`${at}: missing value for command`);
  cmds.push(cmd);
  return [{ cmds }, i];
}
