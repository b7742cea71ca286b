/**
 * A result as a script reads it, when stdout is a pipe or a file (after gh):
 * the same content as on a terminal, plainly, so `| grep`, `| cut -f2`,
 * `| head` and `> file` do the natural thing.
 *
 * - a table: one row a line, cells tab-separated, no header;
 * - a log: its lines, as `tail` prints them (the `text` column, its tabs
 *   kept; the line numbers are in --json);
 * - a text: itself, byte for byte (what `cat` would print);
 * - an object: `key<TAB>value` lines, nested keys dotted (`memory.total`), an
 *   array one element a line under the same key, so `cut -f2` gives one value
 *   a line and `grep '^addresses'` gives them all;
 * - a tree: one node a line, as its path from the root (`src/cli/io.ts`), a
 *   value after a tab;
 * - a chart: `series<TAB>x<TAB>y` lines.
 *
 * No colour, no header, no truncation, no units: a size is its number of
 * bytes, a null an empty field. A string someone else chose cannot forge a row
 * or a column, or act on a terminal: its tabs, newlines and controls are
 * escaped as shown() escapes them. Only a text result is left as it is.
 */
import { mediaBytes, type ResultValue, type Scalar, type TreeNode } from "../core/result.ts";
import { shown } from "./render.ts";

/** A result in plain form, each line ending in a newline (a text: exactly its own bytes); every value renders. */
export function renderPlain(value: ResultValue): string {
  switch (value.type) {
    case "table":
      return value.rows.map((row) => `${row.map(plainCell).join("\t")}\n`).join("");
    case "log": {
      const at = value.columns.includes("text") ? value.columns.indexOf("text") : value.columns.length - 1;
      return value.rows.map((row) => `${logLine(row[at])}\n`).join("");
    }
    case "text":
      return value.endsLine ? `${value.text}\n` : value.text;
    case "object":
      return objectLines(value.value, "").join("");
    case "tree":
      return treeLines(value.root, "").join("");
    case "chart":
      return value.series
        .flatMap((s) => s.points.map(([x, y]) => `${shown(s.name)}\t${plainCell(x)}\t${y}\n`))
        .join("");
    case "media":
      // the data itself only with --json: a terminal or a pipe is told what came, a line a block
      return `${value.text === "" ? "" : `${value.text}\n`}${value.blocks.map((b) => `${b.kind}\t${shown(b.mimeType)}\t${mediaBytes(b)}\n`).join("")}`;
  }
}

/** One cell: a string escaped, a number as it is (never rounded), a null empty. */
export function plainCell(cell: unknown): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return shown(cell);
  if (typeof cell === "object") return shown(JSON.stringify(cell));
  return String(cell as Scalar);
}

/**
 * A log's line as it was written: its tabs kept, every other control escaped,
 * so it cannot forge a line or act on a terminal (what `rta log tail
 * --follow` prints piped, too).
 */
export function logLine(cell: unknown): string {
  return typeof cell === "string" ? cell.split("\t").map(shown).join("\t") : plainCell(cell);
}

function objectLines(value: Record<string, unknown>, prefix: string): string[] {
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) out.push(...valueLines(`${prefix}${shown(key)}`, v));
  return out;
}

function valueLines(key: string, v: unknown): string[] {
  if (Array.isArray(v)) {
    if (v.length === 0) return [`${key}\t\n`];
    // scalars one a line under the key; objects under key.N, so their fields stay apart
    return v.flatMap((item, i) =>
      item !== null && typeof item === "object" ? valueLines(`${key}.${i}`, item) : [`${key}\t${plainCell(item)}\n`],
    );
  }
  if (v !== null && typeof v === "object") {
    const lines = objectLines(v as Record<string, unknown>, `${key}.`);
    return lines.length > 0 ? lines : [`${key}\t\n`];
  }
  return [`${key}\t${plainCell(v)}\n`];
}

function treeLines(node: TreeNode, parent: string): string[] {
  const name = shown(node.name);
  const path = parent === "" ? name : parent.endsWith("/") ? `${parent}${name}` : `${parent}/${name}`;
  const line = node.value === undefined ? `${path}\n` : `${path}\t${plainCell(node.value)}\n`;
  return [line, ...(node.children ?? []).flatMap((kid) => treeLines(kid, path))];
}
