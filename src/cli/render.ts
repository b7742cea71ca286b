/**
 * Renders a result value for a person at a terminal. The JSON form is the
 * value itself; this is only its face.
 */
import type { ChalkInstance } from "chalk";
import type { ColumnSpec } from "../core/capability.ts";
import type { ResultValue, Scalar, TreeNode } from "../core/result.ts";
import { bytesWords } from "../core/words.ts";

export interface RenderHints {
  columns?: readonly ColumnSpec[];
  fields?: readonly ColumnSpec[];
}

export function renderHuman(value: ResultValue, paint: ChalkInstance, hints: RenderHints = {}): string {
  switch (value.type) {
    case "object": {
      const units = new Map((hints.fields ?? []).map((f) => [f.name, f.unit]));
      return renderObject(value.value, paint, "", "", units);
    }
    case "table":
    case "log": {
      const units = new Map((hints.columns ?? []).map((c) => [c.name, c.unit]));
      const cells = value.rows.map((row) => row.map((cell, i) => formatCell(cell, units.get(value.columns[i] ?? ""))));
      let out = renderGrid(value.columns, cells, paint);
      if (value.total > value.rows.length) out += paint.dim(`showing ${value.rows.length} of ${value.total}\n`);
      return out;
    }
    case "text":
      return value.text.endsWith("\n") ? value.text : `${value.text}\n`;
    case "tree":
      return renderTree(value.root, "", true, true);
    case "chart":
      return value.series.map((s) => `${paint.bold(s.name)} (${value.unit})\n${renderBars(s.points)}`).join("");
  }
}

function renderObject(
  value: Record<string, unknown>,
  paint: ChalkInstance,
  indent: string,
  path: string,
  units: Map<string, ColumnSpec["unit"]>,
): string {
  const keys = Object.keys(value);
  const width = Math.max(0, ...keys.map((k) => k.length));
  let out = "";
  for (const key of keys) {
    const v = value[key];
    const at = path ? `${path}.${key}` : key;
    const label = paint.bold(`${indent}${key.padEnd(width)}`);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const nested = v as Record<string, unknown>;
      out +=
        Object.keys(nested).length === 0
          ? `${label}  -\n`
          : `${paint.bold(`${indent}${key}`)}\n${renderObject(nested, paint, `${indent}  `, at, units)}`;
    } else {
      const unit = units.get(at);
      out += `${label}  ${typeof v === "number" && unit ? formatCell(v, unit) : formatValue(v)}\n`;
    }
  }
  return out;
}

function formatValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(formatValue).join(", ");
  if (v === null || v === undefined) return "-";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function formatCell(cell: Scalar, unit: ColumnSpec["unit"]): string {
  if (typeof cell !== "number") return cell === null ? "-" : String(cell);
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
  return `${paint.bold(line(columns.map((c) => c.toUpperCase())))}\n${rows.map((r) => `${line(r)}\n`).join("")}`;
}

function renderTree(node: TreeNode, prefix: string, last: boolean, root: boolean): string {
  const label = node.value === undefined ? node.name : `${node.name}: ${formatValue(node.value)}`;
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
