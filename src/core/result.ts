/**
 * Result values. Every capability answers with one JSON object whose `type`
 * names its shape; the CLI renders it for a person and the MCP front sends it
 * as JSON text. A table's `total` counts every row there is, so a total larger
 * than `rows.length` says the list was cut.
 */
import type { RtaError } from "./errors.ts";

export type Scalar = string | number | boolean | null;

export interface ObjectResult {
  type: "object";
  value: Record<string, unknown>;
}

/**
 * Said beside a result: `warning` when it was cut for the model
 * (`core.mcp.result.cut`), `warnings` for what the capability says of its
 * own work (`fs.walk.skipped`). Its code's exit status is the CLI's.
 */
export interface Warning {
  code: string;
  message: string;
}

export interface TableResult {
  type: "table";
  columns: string[];
  rows: Scalar[][];
  /** every row there is, including those not sent */
  total: number;
  warning?: Warning;
  /** what the capability says beside its rows: e.g. entries a walk could not read and skipped */
  warnings?: Warning[];
}

/** A log is a table in time order; when it is cut, its newest rows are kept. */
export interface LogResult {
  type: "log";
  columns: string[];
  rows: Scalar[][];
  total: number;
  warning?: Warning;
  /** what the capability says beside its rows */
  warnings?: Warning[];
}

export interface TextResult {
  type: "text";
  text: string;
  /**
   * What is said after the text and is not part of it, in an agent's words:
   * "[more lines follow: read on with from_line=15]". An agent is sent it as
   * the text's last line (forAgent); the CLI says it on stderr, in its own
   * spelling, so `rta fs read f > copy` holds only the file.
   */
  note?: string;
  /**
   * Why the text is not the whole of what was asked, byte for byte: "cut" when
   * it stopped at a size bound the caller did not choose, "replaced" when bytes
   * that are not UTF-8 were read as U+FFFD. The CLI exits non-zero on either.
   */
  short?: "cut" | "replaced";
  /**
   * The text's last line ends in a newline in the file, which lines joined
   * for an agent leave out: the CLI prints it, so `--from-line 2 --lines 2`
   * prints what `sed -n 2,3p` does.
   */
  endsLine?: true;
}

export interface TreeNode {
  name: string;
  value?: Scalar;
  children?: TreeNode[];
}

export interface TreeResult {
  type: "tree";
  root: TreeNode;
  /** what the capability says beside the tree: e.g. directories it could not list, shown without children */
  warnings?: Warning[];
}

export interface ChartSeries {
  name: string;
  points: [Scalar, number][];
}

export interface ChartResult {
  type: "chart";
  unit: string;
  series: ChartSeries[];
}

export interface ErrorResult {
  type: "error";
  code: string;
  message: string;
  hint?: string;
  /** whole seconds to wait before sending the call again (a rate limit) */
  retry_after_seconds?: number;
}

/** An image or audio block an upstream answered, passed on as it came: base64 data and its mime type. */
export interface MediaBlock {
  kind: "image" | "audio";
  mimeType: string;
  /** base64, as the upstream sent it */
  data: string;
}

/** An upstream's answer holding images or audio, with the text it said beside them. */
export interface MediaResult {
  type: "media";
  text: string;
  blocks: MediaBlock[];
}

/** How many bytes a media block's base64 data decodes to, counted without decoding it. */
export function mediaBytes(block: MediaBlock): number {
  const pad = block.data.endsWith("==") ? 2 : block.data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((block.data.length * 3) / 4) - pad);
}

export type ResultValue = ObjectResult | TableResult | LogResult | TextResult | TreeResult | ChartResult | MediaResult;

export type Shape = ResultValue["type"];

/** An object result. */
export function object(value: Record<string, unknown>): ObjectResult {
  return { type: "object", value };
}

/** A table of `rows`, of which there are `total` in all (defaults to the rows given). */
export function table(columns: string[], rows: Scalar[][], total = rows.length): TableResult {
  return { type: "table", columns, rows, total };
}

/** A text result, with what is said after it (its note) and why it is short of the whole, where either applies. */
export function text(body: string, note?: string, short?: TextResult["short"]): TextResult {
  const out: TextResult = { type: "text", text: body };
  if (note !== undefined && note !== "") out.note = note;
  if (short !== undefined) out.short = short;
  return out;
}

/**
 * A result as an agent is sent it: a text's note is its last line, as it
 * always was (the whole text, when there is none), and what is only the
 * CLI's (`short`, `endsLine`) is left out. Every other
 * value is sent as it is. Refuses nothing.
 */
export function forAgent(value: ResultValue): ResultValue {
  if (value.type !== "text" || (value.note === undefined && value.short === undefined && !value.endsLine)) return value;
  const { text, note } = value;
  return { type: "text", text: note === undefined ? text : text === "" ? note : `${text}\n${note}` };
}

/** An error as a result value: code, message and, when there are, hint and the seconds to wait. */
export function errorResult(err: RtaError): ErrorResult {
  const out: ErrorResult = { type: "error", code: err.code, message: err.message };
  if (err.hint !== undefined) out.hint = err.hint;
  if (err.retryAfter !== undefined) out.retry_after_seconds = err.retryAfter;
  return out;
}
