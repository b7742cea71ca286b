/**
 * How the operator's commands (grant, lock, token, agent) print, after gh: on
 * a terminal a grid with a header, colour and relative times ("in 29m", "3m
 * ago"); piped, one row a line, tab-separated, no header, absolute ISO times;
 * with --json, the rows as objects keyed by column beside their `total`,
 * indented on a terminal. Notes for a person go to stderr.
 */
import { type Scalar, table } from "../core/result.ts";
import type { Cli } from "./factory.ts";
import { type Form, jsonText, outputForm, paint, StdoutClosed } from "./io.ts";
import { plainCell } from "./plain.ts";
import { renderHuman } from "./render.ts";
import { isoTime, relativeTime } from "./renderTime.ts";

export { isoTime, relativeTime };

/** A time for the form: relative on a terminal, ISO otherwise; where there is none, `none` on a terminal, else empty. */
export function timeFor(form: Form, at: number | null, now: number, none: string): string | null {
  if (at === null) return form === "terminal" ? none : null;
  return form === "terminal" ? relativeTime(at, now) : (isoTime(at) as string);
}

/** One column of a listing: its header, and its cell for the form (piped, escaped by plain.ts; a null is an empty field). */
export interface Column<T> {
  name: string;
  cell: (item: T, form: Form) => Scalar;
}

/** A listing of the operator's rows: the key its JSON sits under, the rows, and how each reads. */
export interface Listing<T> {
  /** "grants": the JSON is `{"grants": [...], "total": n}` */
  key: string;
  items: T[];
  columns: Column<T>[];
  /** a row as --json gives it: every column's value, keyed, and more where the store holds more */
  json: (item: T) => Record<string, unknown>;
  /** said on a terminal when there is none: "no grants" */
  empty: string;
}

/**
 * Prints a listing in the form --json and the terminal choose: a grid on a
 * terminal (`empty` when there is nothing), tab-separated rows piped (nothing
 * when there is nothing), or the JSON value. Refuses nothing.
 */
export function printListing<T>(cli: Cli, json: boolean | undefined, l: Listing<T>): void {
  try {
    printForm(cli, json, l);
  } catch (err) {
    if (!readerLeft(err)) throw err; // `| head` had what it wanted
  }
}

function printForm<T>(cli: Cli, json: boolean | undefined, l: Listing<T>): void {
  const { io } = cli;
  const form = outputForm(io, json);
  if (form === "json") {
    io.out(jsonText(io, { [l.key]: l.items.map(l.json), total: l.items.length }));
    return;
  }
  const names = l.columns.map((c) => c.name);
  const rows = l.items.map((item) => l.columns.map((c) => c.cell(item, form)));
  if (form === "plain") {
    io.out(rows.map((r) => `${r.map(plainCell).join("\t")}\n`).join(""));
    return;
  }
  io.out(rows.length === 0 ? `${l.empty}\n` : renderHuman(table(names, rows), paint(io)));
}

/**
 * Whether a write failed because the reader of stdout went away (`| head`,
 * `| true`): what was done is done, and it had what it wanted, so a command
 * ends with 0 and says nothing, as ripgrep does. Refuses nothing.
 */
export function readerLeft(err: unknown): boolean {
  // io.out says it as StdoutClosed, with the errno; a stream's own write says it as a Node error's code
  if (err instanceof StdoutClosed) return err.errno === "EPIPE";
  return (err as NodeJS.ErrnoException | undefined)?.code === "EPIPE";
}
