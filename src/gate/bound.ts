/**
 * Stage 12, bound: how large a result an agent may be handed.
 *
 * - The hard bound (8 MiB by default, `--max-result` 1..256 MiB) is the
 *   server's memory: a result is held whole while it is handled, at many
 *   times its size. Past it the call is refused as `core.result.toolarge`;
 *   it ran, and the record says so with that code.
 * - The model budget (80 KiB) is what fits beside a task in a model's context
 *   and under the ceiling some clients put on a tool result. A table past it
 *   is cut to its first rows (a log to its last) with its true total and a
 *   `core.mcp.result.cut` warning; a text ends on a line saying how much was
 *   left out; a tree, chart or object that cannot be cut is refused as
 *   `core.mcp.result.toolarge`.
 *
 * A person at the CLI chose to ask and is not bounded.
 *
 * A capability that streams rows writes them into a TableWriter, which keeps
 * only what the model will be sent and counts the rest, so a 50 MB table is
 * never held whole.
 */
import { RtaError } from "../core/errors.ts";
import type { LogResult, ResultValue, Scalar, TableResult, TextResult } from "../core/result.ts";
import { cutsACredential } from "../core/secrets.ts";
import { jsonSize, jsonSizeAtMost, rowSize, stringSize } from "./resultSize.ts";

const MiB = 1024 * 1024;
const KiB = 1024;

/** What a model is sent at most: about what fits beside a task in its context. */
export const MODEL_BUDGET_BYTES = 80 * KiB;
/** The default hard bound: more than anything the catalogue answers honestly. */
export const DEFAULT_MAX_RESULT_MIB = 8;
/** `--max-result` takes 1..256 MiB: past 256 the server's own memory is the problem. */
export const MAX_RESULT_RANGE_MIB: readonly [number, number] = [1, 256];
/** How many bytes of rows pass between hints to the garbage collector while a large table streams. */
const COLLECT_EVERY_BYTES = 1 * MiB;
/** Room kept for the warning a cut result carries. */
const WARNING_ROOM = 256;

export interface Limits {
  /** bytes; past it the call is refused */
  hard: number;
  /** bytes; past it the result is cut or refused for the model */
  model: number;
}

export const UNBOUNDED: Limits = { hard: Number.POSITIVE_INFINITY, model: Number.POSITIVE_INFINITY };

/** An agent's limits: the hard bound in MiB (--max-result) and the model's budget. */
export function agentLimits(maxResultMiB = DEFAULT_MAX_RESULT_MIB): Limits {
  return { hard: maxResultMiB * MiB, model: MODEL_BUDGET_BYTES };
}

/** The refusal for a result past the hard bound (core.result.toolarge), with how much it was at least. */
export function tooLarge(size: number, hard: number): RtaError {
  return new RtaError(
    "core.result.toolarge",
    `the result is at least ${(size / MiB).toFixed(1)} MiB, over the ${(hard / MiB).toFixed(0)} MiB limit`,
    "ask for less: a smaller limit, a tighter filter or a narrower path",
  );
}

/**
 * Rows written one at a time, measured as they come. Keeps the rows a model
 * will be sent (the first for a table, the last for a log), counts every row,
 * and refuses as soon as the whole would pass the hard bound.
 */
export class TableWriter {
  private kept: Scalar[][] = [];
  private keptBytes = 0;
  private head = 0;
  private count = 0;
  private bytes: number;
  private cut = false;
  private nextCollect = COLLECT_EVERY_BYTES;
  private readonly budget: number;

  constructor(
    private readonly columns: string[],
    private readonly kind: "table" | "log",
    private readonly limits: Limits,
  ) {
    this.bytes = jsonSize({ type: kind, columns, rows: [], total: 0 });
    this.budget = limits.model - this.bytes - WARNING_ROOM;
  }

  add(row: Scalar[]): void {
    const size = rowSize(row) + 1;
    this.bytes += size;
    this.count++;
    if (this.bytes > this.limits.hard) throw tooLarge(this.bytes, this.limits.hard);
    // Rows dropped for the model are garbage at once; the collector is told so every few MiB, or a
    // 50 MB table would grow the heap by its size before the collector chose to run.
    if (this.bytes >= this.nextCollect) {
      this.nextCollect = this.bytes + COLLECT_EVERY_BYTES;
      if (this.limits.model !== Number.POSITIVE_INFINITY) Bun.gc(false);
    }
    if (this.kind === "table") {
      if (!this.cut && this.keptBytes + size <= this.budget) {
        this.kept.push(row);
        this.keptBytes += size;
      } else this.cut = true;
      return;
    }
    this.kept.push(row);
    this.keptBytes += size;
    while (this.keptBytes > this.budget && this.head < this.kept.length) {
      this.keptBytes -= rowSize(this.kept[this.head] as Scalar[]) + 1;
      this.head++;
      this.cut = true;
    }
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept = this.kept.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * True once a table has been cut for the model: later rows would only be
   * counted, so a capability may count them without producing them.
   */
  full(): boolean {
    return this.cut && this.kind === "table";
  }

  /** The result; `total` may say there are more rows than were written (a capability's own limit). */
  finish(total = this.count): TableResult | LogResult {
    const rows = this.head > 0 ? this.kept.slice(this.head) : this.kept;
    const out: TableResult | LogResult = {
      type: this.kind,
      columns: this.columns,
      rows,
      total: Math.max(total, this.count),
    };
    if (this.cut) out.warning = cutWarning(rows.length, out.total, this.kind);
    return out;
  }
}

function cutWarning(sent: number, total: number, kind: "table" | "log"): { code: string; message: string } {
  const which = kind === "log" ? "last" : "first";
  return {
    code: "core.mcp.result.cut",
    message: `cut to the ${which} ${sent} of ${total} rows to fit the ${MODEL_BUDGET_BYTES / KiB} KiB a model is sent; ask for fewer rows or a tighter filter to see the rest`,
  };
}

/** Stage 12: holds a finished result to the limits, cutting or refusing as the shape allows. */
export function bound(value: ResultValue, limits: Limits): ResultValue {
  if (limits === UNBOUNDED) return value;
  // far within the budget, as most results are: measured exactly only when the cheap bound says it may be near
  if (jsonSizeAtMost(value, limits.model) <= Math.min(limits.model, limits.hard)) return value;
  const size = jsonSize(value, limits.hard);
  if (size > limits.hard) throw tooLarge(size, limits.hard);
  if (size <= limits.model) return value;
  switch (value.type) {
    case "table":
    case "log": {
      // the capability's own warnings are kept, and the rows cut to leave them room
      const said = value.warnings;
      const room = said ? { ...limits, model: limits.model - jsonSize(said) } : limits;
      const writer = new TableWriter(value.columns, value.type, room);
      for (const row of value.rows) writer.add(row);
      const out = writer.finish(value.total);
      if (said) out.warnings = said;
      return out;
    }
    case "text":
      return cutText(value, limits.model);
    default:
      throw new RtaError(
        "core.mcp.result.toolarge",
        `the result is ${Math.ceil(size / KiB)} KiB, more than the ${MODEL_BUDGET_BYTES / KiB} KiB a model is sent, and a ${value.type} cannot be cut`,
        "narrow the call: a smaller depth, a tighter filter or a narrower path",
      );
  }
}

/** A text cut to the budget, ending on a line that says how much was left out. */
function cutText(value: TextResult, budget: number): TextResult {
  const room = budget - WARNING_ROOM - 32;
  // The longest prefix whose JSON fits, found by halving: each probe measures one prefix, nothing per character.
  let lo = 0;
  let hi = Math.min(value.text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (stringSize(value.text.slice(0, mid)) - 2 <= room) lo = mid;
    else hi = mid - 1;
  }
  // Never end between the halves of a surrogate pair.
  const code = value.text.charCodeAt(lo - 1);
  let end = code >= 0xd800 && code <= 0xdbff ? lo - 1 : lo;
  // Never end inside a credential: masked only whole, its first half would be shown. The cut line goes instead.
  const lineStart = value.text.lastIndexOf("\n", end - 1) + 1;
  const lineEnd = value.text.indexOf("\n", end);
  const rest = value.text.slice(end, lineEnd < 0 ? undefined : lineEnd);
  if (cutsACredential("", value.text.slice(lineStart, end), rest)) end = lineStart;
  const total = Buffer.byteLength(value.text);
  const left = total - Buffer.byteLength(value.text.slice(0, end));
  return {
    type: "text",
    text: `${value.text.slice(0, end)}\n[${left} more bytes left out of ${total}: ask for a narrower range to see them]`,
  };
}
