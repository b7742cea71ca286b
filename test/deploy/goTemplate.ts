/**
 * The smallest honest renderer of the Go-template subset deploy/chart uses, so
 * the chart can be rendered and checked where helm is not installed.
 *
 * It is strict where Helm is lenient, so the chart never leans on something
 * this file does not model: a function it does not know, a field a value does
 * not have (a key missing from .Values included), printing a map or a list,
 * comparing an int with a float, or `template`/`block`/`break`/`continue`
 * fail the render with the file and line. Numbers follow Go: a template's
 * literal, `int`, `atoi` and sprig's arithmetic give ints (bigint
 * here), a number from values.yaml is a float64 (a JS number), as Helm loads
 * it. toYaml writes keys sorted, as Helm's does; its quoting differs from
 * go-yaml's but parses to the same values.
 */
import { createHash } from "node:crypto";
import { type Arg, type Pipeline, parseAction, TemplateError } from "./goTemplateParse.ts";

export { TemplateError };

export type Node =
  | { kind: "text"; text: string }
  | { kind: "out"; pipe: Pipeline; at: string }
  | { kind: "if"; pipe: Pipeline; yes: Node[]; else: Node[]; at: string }
  | { kind: "with"; pipe: Pipeline; yes: Node[]; else: Node[]; at: string }
  | { kind: "range"; pipe: Pipeline; vars: string[]; body: Node[]; else: Node[]; at: string }
  | { kind: "set"; pipe: Pipeline; at: string };

/** A render refused by the template itself (`fail`), as Helm reports it. */
export class TemplateFail extends Error {}

type Scope = Map<string, unknown>[];

interface Frame {
  dot: unknown;
  scope: Scope;
}

/** Parsed templates of a chart: the defines from every file, and each file's body. */
export class Templates {
  readonly defines = new Map<string, Node[]>();
  readonly files = new Map<string, Node[]>();

  /** Parses `text` as the file `name`; its defines join every other file's. */
  add(name: string, text: string): void {
    this.files.set(name, parseTemplate(name, text, this.defines));
  }

  /** Renders the file `name` with `root` as `.` and `$`. */
  render(name: string, root: unknown): string {
    const nodes = this.files.get(name);
    if (!nodes) throw new TemplateError(`no template ${name}`);
    return this.run(nodes, { dot: root, scope: [new Map([["$", root]])] });
  }

  private run(nodes: Node[], f: Frame): string {
    let out = "";
    for (const n of nodes) {
      if (n.kind === "text") out += n.text;
      else if (n.kind === "out") out += printed(this.pipe(n.pipe, f, n.at), n.at);
      else if (n.kind === "set") this.pipe(n.pipe, f, n.at);
      else if (n.kind === "if") {
        const v = this.pipe(n.pipe, f, n.at);
        out += this.inner(truthy(v) ? n.yes : n.else, f, f.dot);
      } else if (n.kind === "with") {
        const v = this.pipe(n.pipe, f, n.at);
        out += truthy(v) ? this.inner(n.yes, f, v) : this.inner(n.else, f, f.dot);
      } else out += this.range(n, f);
    }
    return out;
  }

  private inner(nodes: Node[], f: Frame, dot: unknown, vars?: Map<string, unknown>): string {
    return this.run(nodes, { dot, scope: [...f.scope, vars ?? new Map()] });
  }

  private range(n: Extract<Node, { kind: "range" }>, f: Frame): string {
    const v = this.pipe(n.pipe, f, n.at);
    let items: [unknown, unknown][];
    if (v === null || v === undefined) items = [];
    else if (Array.isArray(v)) items = v.map((x, i) => [BigInt(i), x]);
    else if (isMap(v))
      items = Object.keys(v)
        .sort()
        .map((k) => [k, v[k]]);
    else throw new TemplateError(`${n.at}: range can't iterate over ${typeName(v)}`);
    if (items.length === 0) return this.inner(n.else, f, f.dot);
    let out = "";
    for (const [k, x] of items) {
      const vars = new Map<string, unknown>();
      if (n.vars.length === 1) vars.set(n.vars[0] as string, x);
      if (n.vars.length === 2) {
        vars.set(n.vars[0] as string, k);
        vars.set(n.vars[1] as string, x);
      }
      out += this.inner(n.body, f, x, vars);
    }
    return out;
  }

  private pipe(p: Pipeline, f: Frame, at: string): unknown {
    let v: unknown;
    let first = true;
    for (const cmd of p.cmds) {
      v = this.command(cmd, f, at, first ? undefined : { v });
      first = false;
    }
    if (p.decl) {
      const name = p.decl.name;
      if (p.decl.op === ":=") (f.scope[f.scope.length - 1] as Map<string, unknown>).set(name, v);
      else {
        const holder = [...f.scope].reverse().find((m) => m.has(name));
        if (!holder) throw new TemplateError(`${at}: undefined variable ${name}`);
        holder.set(name, v);
      }
      return undefined;
    }
    return v;
  }

  private command(args: Arg[], f: Frame, at: string, piped?: { v: unknown }): unknown {
    const head = args[0] as Arg;
    if (head.kind === "ident") {
      const vals = args.slice(1).map((a) => this.arg(a, f, at));
      if (piped) vals.push(piped.v);
      return this.call(head.name, vals, at);
    }
    if (args.length > 1 || piped) throw new TemplateError(`${at}: can't give arguments to a non-function`);
    return this.arg(head, f, at);
  }

  private arg(a: Arg, f: Frame, at: string): unknown {
    switch (a.kind) {
      case "string":
      case "bool":
        return a.value;
      case "int":
        return a.value;
      case "float":
        return a.value;
      case "nil":
        return null;
      case "pipe":
        return this.pipe(a.pipe, f, at);
      case "ident":
        return this.call(a.name, [], at);
      case "field": {
        let base: unknown;
        if (a.base === ".") base = f.dot;
        else {
          const holder = [...f.scope].reverse().find((m) => m.has(a.base));
          if (!holder) throw new TemplateError(`${at}: undefined variable ${a.base}`);
          base = holder.get(a.base);
        }
        return walk(base, a.path, a.base, at);
      }
    }
  }

  private call(name: string, v: unknown[], at: string): unknown {
    const fn = Object.hasOwn(FUNCS, name) ? FUNCS[name] : undefined;
    if (name === "include") {
      const [tpl, dot] = v;
      const body = this.defines.get(String(tpl));
      if (!body) throw new TemplateError(`${at}: no template "${tpl}" to include`);
      return this.run(body, { dot, scope: [new Map([["$", dot]])] });
    }
    if (!fn)
      throw new TemplateError(
        `${at}: function "${name}" not defined (not in the subset test/deploy/goTemplate.ts renders)`,
      );
    const n = ARITY[name];
    if (n !== undefined && v.length !== n)
      throw new TemplateError(`${at}: ${name} takes ${n} arguments, got ${v.length}`);
    return fn(v, at);
  }
}

function parseTemplate(file: string, text: string, defines: Map<string, Node[]>): Node[] {
  const { nodes } = parseBody(file, lex(file, text), 0, defines, true);
  return nodes;
}

interface Piece {
  text?: string;
  action?: string;
  at: string;
}

/** Splits a file into text and actions, trimming around `{{-` and `-}}`, dropping comments. */
function lex(file: string, text: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  let trimNext = false;
  while (i < text.length) {
    const open = text.indexOf("{{", i);
    let chunk = text.slice(i, open < 0 ? text.length : open);
    if (trimNext) chunk = chunk.replace(/^\s+/, "");
    trimNext = false;
    if (open < 0) {
      pieces.push({ text: chunk, at: file });
      break;
    }
    const line = text.slice(0, open).split("\n").length;
    const at = `${file}:${line}`;
    let j = open + 2;
    if (/^-\s/.test(text.slice(j, j + 2))) {
      chunk = chunk.replace(/\s+$/, "");
      j += 1;
    }
    pieces.push({ text: chunk, at });
    let k = j;
    let quote = "";
    for (; k < text.length; k++) {
      const c = text[k];
      if (quote) {
        if (c === "\\" && quote === '"') k++;
        else if (c === quote) quote = "";
      } else if (c === '"' || c === "`") quote = c;
      else if (text.startsWith("/*", k)) {
        const end = text.indexOf("*/", k + 2);
        if (end < 0) throw new TemplateError(`${at}: unclosed comment`);
        k = end + 1;
      } else if (text.startsWith("}}", k)) break;
    }
    if (k >= text.length) throw new TemplateError(`${at}: unclosed action`);
    let body = text.slice(j, k);
    if (/\s-$/.test(body)) {
      body = body.slice(0, -1);
      trimNext = true;
    }
    body = body.trim();
    if (!(body.startsWith("/*") && body.endsWith("*/"))) pieces.push({ action: body, at });
    i = k + 2;
  }
  return pieces;
}

const KEYWORDS = new Set(["if", "else", "end", "range", "with", "define"]);
const REFUSED = new Set(["template", "block", "break", "continue"]);

function parseBody(
  file: string,
  pieces: Piece[],
  from: number,
  defines: Map<string, Node[]>,
  top = false,
): { nodes: Node[]; next: number; stop?: string; stopAt?: string } {
  const nodes: Node[] = [];
  let i = from;
  while (i < pieces.length) {
    const p = pieces[i] as Piece;
    i++;
    if (p.text !== undefined) {
      if (p.text) nodes.push({ kind: "text", text: p.text });
      continue;
    }
    const action = p.action as string;
    const word = action.match(/^[a-z]+\b/)?.[0] ?? "";
    if (REFUSED.has(word)) throw new TemplateError(`${p.at}: {{${word}}} is not in the subset this renderer takes`);
    if (!KEYWORDS.has(word)) {
      const pipe = parseAction(action, p.at);
      nodes.push(pipe.decl ? { kind: "set", pipe, at: p.at } : { kind: "out", pipe, at: p.at });
      continue;
    }
    if (word === "end" || word === "else") {
      if (top) throw new TemplateError(`${p.at}: unexpected {{${word}}}`);
      return { nodes, next: i, stop: action, stopAt: p.at };
    }
    const rest = action.slice(word.length).trim();
    if (word === "define") {
      const name = JSON.parse(rest) as string;
      const body = parseBody(file, pieces, i, defines);
      if (body.stop !== "end") throw new TemplateError(`${p.at}: define ${name} has no {{end}}`);
      defines.set(name, body.nodes);
      i = body.next;
      continue;
    }
    const built = parseBlock(file, word, rest, p.at, pieces, i, defines);
    nodes.push(built.node);
    i = built.next;
  }
  if (!top) throw new TemplateError(`${file}: unexpected end of file, an {{end}} is missing`);
  return { nodes, next: i };
}

function parseBlock(
  file: string,
  word: string,
  rest: string,
  at: string,
  pieces: Piece[],
  from: number,
  defines: Map<string, Node[]>,
): { node: Node; next: number } {
  let vars: string[] = [];
  let head = rest;
  if (word === "range") {
    const m = rest.match(/^(\$\w+)(?:\s*,\s*(\$\w+))?\s*:=\s*(.*)$/s);
    if (m) {
      vars = [m[1], m[2]].filter((x): x is string => x !== undefined);
      head = m[3] as string;
    }
  }
  const pipe = parseAction(head, at);
  const body = parseBody(file, pieces, from, defines);
  let elseNodes: Node[] = [];
  let next = body.next;
  if (body.stop?.startsWith("else")) {
    const tail = (body.stop as string).slice(4).trim();
    if (tail.startsWith("if ") && word === "if") {
      const chained = parseBlock(file, "if", tail.slice(3), body.stopAt as string, pieces, next, defines);
      elseNodes = [chained.node];
      next = chained.next;
    } else if (tail) throw new TemplateError(`${body.stopAt}: {{else ${tail}}} is not in the subset`);
    else {
      const after = parseBody(file, pieces, next, defines);
      if (after.stop !== "end") throw new TemplateError(`${at}: ${word} has no {{end}}`);
      elseNodes = after.nodes;
      next = after.next;
    }
  } else if (body.stop !== "end") throw new TemplateError(`${at}: ${word} has no {{end}}`);
  if (word === "range") return { node: { kind: "range", pipe, vars, body: body.nodes, else: elseNodes, at }, next };
  const kind = word === "with" ? "with" : "if";
  return { node: { kind, pipe, yes: body.nodes, else: elseNodes, at }, next };
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float64";
  if (Array.isArray(v)) return "list";
  return typeof v === "object" ? "map" : typeof v;
}

function walk(base: unknown, path: string[], from: string, at: string): unknown {
  let v = base;
  let where = from === "." ? "" : from;
  for (const key of path) {
    if (!isMap(v)) throw new TemplateError(`${at}: can't evaluate field ${key} in ${typeName(v)} ${where || "."}`);
    if (!(key in v)) throw new TemplateError(`${at}: ${where}.${key} is not there (strict: every value must exist)`);
    v = v[key];
    where = `${where}.${key}`;
  }
  return v;
}

/** Go's truth: false, 0, nil, and an empty string, list or map are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === "" || v === 0 || v === 0n) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** What `{{ x }}` writes: nil as nothing (Helm), a scalar as Go prints it; a map or a list is refused. */
function printed(v: unknown, at: string): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "object") throw new TemplateError(`${at}: prints a ${typeName(v)}: use toYaml`);
  return str(v);
}

/** sprig's strval: a value as `%v` writes it. */
function str(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : String(v);
  if (typeof v === "object") throw new TemplateError(`a ${typeName(v)} where a string is wanted`);
  return String(v);
}

/** cast.ToInt64, as sprig's arithmetic and `int` use it: a float is cut, a string parsed, anything else 0. */
function toInt(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "string" && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
  return 0n;
}

function compare(a: unknown, b: unknown, at: string): number {
  const kind = (x: unknown) => (typeof x === "bigint" ? "int" : typeof x === "number" ? "float" : typeof x);
  if (kind(a) !== kind(b))
    throw new TemplateError(`${at}: incompatible types for comparison (${typeName(a)}, ${typeName(b)})`);
  if (typeof a === "string" || typeof a === "bigint" || typeof a === "number")
    return a < (b as typeof a) ? -1 : a > (b as typeof a) ? 1 : 0;
  throw new TemplateError(`${at}: can't order ${typeName(a)}`);
}

function equal(a: unknown, b: unknown, at: string): boolean {
  if (typeof a === "boolean" && typeof b === "boolean") return a === b;
  return compare(a, b, at) === 0;
}

const SHORT_ESCAPES: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/**
 * Go's %q (strconv.Quote): a printable rune (strconv.IsPrint: a letter, mark, number, punctuation, symbol or the
 * ASCII space) as is, the short escapes, a control below 0x80 as \xHH, any other as \uHHHH or \UHHHHHHHH.
 */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    const cp = ch.codePointAt(0) as number;
    if (short) out += short;
    else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** Go's fmt for the verbs a chart's printf uses: %s, %d, %v and %%. */
function printf(format: string, args: unknown[], at: string): string {
  let n = 0;
  const out = format.replace(/%([%sdvq])/g, (_, verb: string) => {
    if (verb === "%") return "%";
    if (n >= args.length) throw new TemplateError(`${at}: printf ${format}: too few arguments`);
    const a = args[n++];
    if (verb === "d" && typeof a !== "bigint") throw new TemplateError(`${at}: printf %d of a ${typeName(a)}`);
    return verb === "q" ? goQuote(str(a)) : str(a);
  });
  if (/%[^%sdvq]/.test(format.replace(/%%/g, "")))
    throw new TemplateError(`${at}: printf ${format}: a verb not in the subset`);
  if (n !== args.length) throw new TemplateError(`${at}: printf ${format}: too many arguments`);
  return out;
}

/** Block-style YAML, keys sorted (as sigs.k8s.io/yaml writes them), with no trailing newline (as Helm's toYaml). */
export function toYaml(v: unknown): string {
  return yamlLines(v, 0).join("\n");
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") {
    const plain = /^[A-Za-z_/][\w./-]*$/.test(v) && !/^(true|false|yes|no|on|off|null|y|n|~)$/i.test(v);
    return plain ? v : goQuote(v);
  }
  return String(v);
}

function yamlLines(v: unknown, depth: number): string[] {
  const pad = "  ".repeat(depth);
  if (Array.isArray(v)) {
    if (v.length === 0) return [`${pad}[]`];
    return v.flatMap((x) => {
      if (typeof x === "object" && x !== null && truthy(x)) {
        const inner = yamlLines(x, depth + 1);
        return [`${pad}- ${(inner[0] as string).trimStart()}`, ...inner.slice(1)];
      }
      return [`${pad}- ${typeof x === "object" ? (Array.isArray(x) ? "[]" : "{}") : scalar(x)}`];
    });
  }
  if (isMap(v)) {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return [`${pad}{}`];
    return keys.flatMap((k) => {
      const x = v[k];
      if (typeof x === "object" && x !== null && truthy(x))
        return [`${pad}${scalar(k)}:`, ...yamlLines(x, Array.isArray(x) ? depth : depth + 1)];
      const inline = typeof x === "object" && x !== null ? (Array.isArray(x) ? "[]" : "{}") : scalar(x);
      return [`${pad}${scalar(k)}: ${inline}`];
    });
  }
  return [`${pad}${scalar(v)}`];
}

type Fn = (v: unknown[], at: string) => unknown;

/** sprig's indent: every line of `text` after `n` spaces. */
function indented(n: unknown, text: unknown): string {
  const pad = " ".repeat(Number(toInt(n)));
  return pad + str(text).replaceAll("\n", `\n${pad}`);
}

/** How many arguments each fixed-arity function takes; a call with another count fails, as in Go. */
const ARITY: Record<string, number> = {
  not: 1,
  eq: 2,
  lt: 2,
  gt: 2,
  default: 2,
  toString: 1,
  int: 1,
  hasPrefix: 2,
  contains: 2,
  hasKey: 2,
  sha256sum: 1,
  toYaml: 1,
  atoi: 1,
  trunc: 2,
  trimSuffix: 2,
  trimPrefix: 2,
  indent: 2,
  nindent: 2,
  fail: 1,
};

/** The functions the chart may call: Go's builtins and the sprig ones it uses. Anything else fails the render. */
const FUNCS: Record<string, Fn> = {
  not: (v, _at) => !truthy(v[0]),
  and: (v) => v.find((x) => !truthy(x)) ?? v[v.length - 1],
  or: (v) => v.find((x) => truthy(x)) ?? v[v.length - 1],
  eq: (v, at) => equal(v[0], v[1], at),
  lt: (v, at) => compare(v[0], v[1], at) < 0,
  gt: (v, at) => compare(v[0], v[1], at) > 0,
  printf: (v, at) => printf(str(v[0]), v.slice(1), at),
  default: (v, _at) => (truthy(v[1]) ? v[1] : v[0]),
  quote: (v) =>
    v
      .filter((x) => x !== null && x !== undefined)
      .map((x) => goQuote(str(x)))
      .join(" "),
  toString: (v: unknown[]) => str(v[0]),
  int: (v, _at) => toInt(v[0]),
  atoi: (v, _at) => {
    const s = str(v[0]);
    return /^[+-]?\d+$/.test(s) ? BigInt(s) : 0n;
  },
  add: (v) => v.reduce<bigint>((a, x) => a + toInt(x), 0n),
  mul: (v) => v.reduce<bigint>((a, x) => a * toInt(x), 1n),
  trunc: (v, _at) => {
    const n = Number(toInt(v[0]));
    const s = str(v[1]);
    return n >= 0 ? s.slice(0, n) : s.slice(Math.max(0, s.length + n));
  },
  trimSuffix: (v, _at) => {
    const [suffix, s] = [str(v[0]), str(v[1])];
    return suffix && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s;
  },
  trimPrefix: (v, _at) => {
    const [prefix, s] = [str(v[0]), str(v[1])];
    return s.startsWith(prefix) ? s.slice(prefix.length) : s;
  },
  hasPrefix: (v, _at) => str(v[1]).startsWith(str(v[0])),
  hasKey: (v, at) => {
    if (!isMap(v[0])) throw new TemplateError(`${at}: hasKey of a ${typeName(v[0])}`);
    return Object.hasOwn(v[0], str(v[1]));
  },
  contains: (v, _at) => str(v[1]).includes(str(v[0])),
  sha256sum: (v, _at) => createHash("sha256").update(str(v[0])).digest("hex"),
  toYaml: (v, _at) => toYaml(v[0]),
  indent: (v, _at) => indented(v[0], v[1]),
  nindent: (v, _at) => `\n${indented(v[0], v[1])}`,
  fail: (v, _at) => {
    throw new TemplateFail(str(v[0]));
  },
};

/** The names of the functions the renderer knows, `include` among them. */
export const KNOWN_FUNCTIONS = [...Object.keys(FUNCS), "include"].sort();
