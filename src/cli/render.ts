/**
 * Renders a result value for a person at a terminal. The JSON form is the
 * value itself; this is only its face.
 */
import type { ChalkInstance } from "chalk";
import type { ColumnSpec } from "../core/capability.ts";
import { mediaBytes, type ResultValue, type Scalar, type TreeNode } from "../core/result.ts";
import { bytesWords } from "../core/words.ts";
import { relativeTime } from "./renderTime.ts";

/**
 * Controls that act on a terminal instead of showing: C0 (ESC, CR, LF, BEL, ...), DEL, C1 (CSI 0x9b among them),
 * the line and paragraph separators; and every format character (Unicode's Cf): the bidirectional overrides and
 * isolates that reorder what follows, and the invisible ones (zero-width space and joiners, word joiner, soft
 * hyphen, byte order mark, tag characters), with which an agent named "claude\u200b" was shown as claude.
 */
const TERMINAL_CONTROLS = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

const NAMED_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * A string someone else chose (an agent's tool, argument or client name, a
 * file's name, a line read from a record), made safe to show a person: every
 * control is written out as an escape (\x1b, \r, \n, \u202e) so it cannot clear
 * the screen, set the title, move the cursor, fake a line or reverse the
 * text. The one function for it: every human rendering of such a string goes
 * through here, piped or not. JSON output keeps JSON's own escaping.
 */
export function shown(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c) => {
    const named = NAMED_ESCAPES[c];
    if (named) return named;
    const code = c.codePointAt(0) as number;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
    return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/**
 * A text someone else wrote (a file read), shown as its lines: its line
 * breaks and tabs are kept, a carriage return too where it ends a line, and
 * every other control is escaped as shown() escapes it, so a file cannot set
 * the title, write the clipboard (OSC 52) or write over a line it shows.
 */
function shownText(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c: string, at: number) =>
    c === "\n" || c === "\t" || (c === "\r" && text[at + 1] === "\n") ? c : shown(c),
  );
}

/** What JSON.stringify leaves raw and a terminal still acts on or hides: DEL, C1, the separators, format characters. */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

/**
 * JSON of a value holding strings someone else chose, for stdout: the same
 * JSON value, with the controls JSON.stringify leaves raw written as \uXXXX
 * (which JSON allows only inside strings, so this changes no value), so
 * `rta agent log | cat` cannot act on the terminal either.
 */
export function jsonShown(value: unknown): string {
  return jsonEscaped(JSON.stringify(value));
}

/** JSON text with the controls JSON.stringify leaves raw written as \uXXXX; they stand only inside strings, so no value changes. */
export function jsonEscaped(json: string): string {
  // A character past U+FFFF (a tag character) is written as its two UTF-16 halves, as JSON spells it.
  return json.replace(RAW_IN_JSON, (c) =>
    [...c].length === 1 && c.length === 2
      ? `\\u${c.charCodeAt(0).toString(16)}\\u${c.charCodeAt(1).toString(16)}`
      : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export interface RenderHints {
  columns?: readonly ColumnSpec[];
  fields?: readonly ColumnSpec[];
  /** what a time unit is measured against (ms since the epoch); the system clock when left out */
  now?: number;
}

/** A result as a person reads it on a terminal: grids, units, escaped text; every value type renders, none is refused. */
export function renderHuman(value: ResultValue, paint: ChalkInstance, hints: RenderHints = {}): string {
  const now = hints.now ?? Date.now();
  switch (value.type) {
    case "object": {
      const units = new Map((hints.fields ?? []).map((f) => [f.name, f.unit]));
      return renderObject(value.value, paint, "", "", units, now);
    }
    case "table":
    case "log": {
      const units = new Map((hints.columns ?? []).map((c) => [c.name, c.unit]));
      const cells = value.rows.map((row) =>
        row.map((cell, i) => formatCell(cell, units.get(value.columns[i] ?? ""), now)),
      );
      // "showing 3 of 67" is a note about the table, not part of it: printResult says it on stderr
      return renderGrid(value.columns, cells, paint);
    }
    case "text": {
      const text = shownText(value.text);
      return text === "" || text.endsWith("\n") ? text : `${text}\n`;
    }
    case "tree":
      return renderTree(value.root, "", true, true);
    case "chart":
      return value.series.map((s) => `${paint.bold(s.name)} (${value.unit})\n${renderBars(s.points)}`).join("");
    case "media": {
      const text = shownText(value.text);
      const said = text === "" || text.endsWith("\n") ? text : `${text}\n`;
      // what came, not its bytes (a terminal cannot show them): --json gives the data
      const blocks = value.blocks.map(
        (b) => `${paint.dim(`[${b.kind} ${shown(b.mimeType)}, ${mediaBytes(b)} bytes]`)}\n`,
      );
      return said + blocks.join("");
    }
  }
}

function renderObject(
  value: Record<string, unknown>,
  paint: ChalkInstance,
  indent: string,
  path: string,
  units: Map<string, ColumnSpec["unit"]>,
  now: number,
): string {
  const keys = Object.keys(value);
  const names = keys.map(shown);
  const width = Math.max(0, ...names.map((n) => n.length));
  let out = "";
  for (const [i, key] of keys.entries()) {
    const name = names[i] as string;
    const v = value[key];
    const at = path ? `${path}.${key}` : key;
    const label = paint.bold(`${indent}${name.padEnd(width)}`);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const nested = v as Record<string, unknown>;
      out +=
        Object.keys(nested).length === 0
          ? `${label}  -\n`
          : `${paint.bold(`${indent}${name}`)}\n${renderObject(nested, paint, `${indent}  `, at, units, now)}`;
    } else {
      const unit = units.get(at);
      const scalar = typeof v === "number" || typeof v === "string";
      out += `${label}  ${scalar && unit ? formatCell(v, unit, now) : formatValue(v)}\n`;
    }
  }
  return out;
}

function formatValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(formatValue).join(", ");
  if (v === null || v === undefined) return "-";
  if (typeof v === "object") return shown(JSON.stringify(v));
  return shown(String(v));
}

function formatCell(cell: Scalar, unit: ColumnSpec["unit"], now: number): string {
  if (unit === "time" && typeof cell === "string") {
    const at = Date.parse(cell);
    if (!Number.isNaN(at)) return relativeTime(at, now);
  }
  if (typeof cell !== "number") return cell === null ? "-" : shown(String(cell));
  if (unit === "bytes") return bytesWords(cell);
  if (unit === "percent") return `${cell}%`;
  if (unit === "seconds") return `${cell} s`;
  return String(cell);
}

function renderGrid(columns: string[], rows: string[][], paint: ChalkInstance): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${paint.bold(line(columns.map((c) => shown(c.toUpperCase()))))}\n${rows.map((r) => `${line(r)}\n`).join("")}`;
}

function renderTree(node: TreeNode, prefix: string, last: boolean, root: boolean): string {
  const label = node.value === undefined ? shown(node.name) : `${shown(node.name)}: ${formatValue(node.value)}`;
  let out = root ? `${label}\n` : `${prefix}${last ? "└─ " : "├─ "}${label}\n`;
  const kids = node.children ?? [];
  const next = root ? "" : `${prefix}${last ? "   " : "│  "}`;
  kids.forEach((kid, i) => {
    out += renderTree(kid, next, i === kids.length - 1, false);
  });
  return out;
}

const BAR_WIDTH = 40;

function renderBars(points: [Scalar, number][]): string {
  const max = Math.max(0, ...points.map(([, y]) => y));
  const labels = points.map(([x]) => formatValue(x));
  const width = Math.max(0, ...labels.map((l) => l.length));
  return points
    .map(([, y], i) => {
      const bar = max > 0 ? "█".repeat(Math.round((y / max) * BAR_WIDTH)) : "";
      return `  ${(labels[i] ?? "").padEnd(width)}  ${bar} ${y}\n`;
    })
    .join("");
}
