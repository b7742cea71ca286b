/**
 * How a result reaches a person or a script from the CLI, after gh: on a
 * terminal as render.ts draws it; piped, plainly (plain.ts); with --json, as
 * JSON anywhere (a table's rows as objects keyed by column). What is said
 * about the content rather than being it ("showing 3 of 67", "more lines
 * follow: read on with --from-line 15") goes to stderr in CLI spelling, so
 * stdout holds only the content.
 */
import type { Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { Exit } from "../core/errors.ts";
import type { ResultValue, Scalar } from "../core/result.ts";
import { cliWords } from "./cliWords.ts";
import { type Io, jsonText, outputForm, paint } from "./io.ts";
import { renderPlain } from "./plain.ts";
import { type RenderHints, renderHuman, shown } from "./render.ts";

export interface PrintContext {
  /** the capability that answered, for its units and its arguments' flags */
  cap?: Capability;
  /** to spell a tool's name as a command */
  catalogue?: Catalogue;
  hints?: RenderHints;
  /** the CLI's clock, ms since the epoch, that a time is shown against on a terminal */
  now?: number;
}

/**
 * Prints `value` on stdout in the form --json and the terminal ask for, says
 * its notes on stderr, and returns the exit status: 0, or non-zero for a text
 * that is not the whole of what was asked (cut at a bound the person did not
 * choose: 5; not UTF-8, so not its bytes: 1). Refuses nothing.
 */
export function printResult(io: Io, value: ResultValue, json: boolean | undefined, ctx: PrintContext = {}): number {
  const form = outputForm(io, json);
  const spell = (text: string) => (ctx.catalogue ? cliWords(text, ctx.cap, ctx.catalogue) : text);
  if (form === "json") io.out(jsonText(io, resultJson(value, spell)));
  else if (form === "plain") io.out(renderPlain(value));
  else io.out(renderHuman(value, paint(io), { ...(ctx.hints ?? ctx.cap?.result), now: ctx.now }));
  for (const note of notes(value, form === "json", spell, ctx.cap)) io.err(`rta: note: ${shown(note)}\n`);
  if (value.type !== "text" || value.short === undefined) return Exit.ok;
  return value.short === "cut" ? Exit.tooLarge : Exit.failure;
}

/**
 * The --json form of a result: a table or a log as `{"type", "columns",
 * "rows": [{column: value}], "total"}`, so `jq '.rows[].pid'` works; a text
 * with the newline that ends its last line, and its note in CLI spelling;
 * anything else as the value itself.
 */
export function resultJson(value: ResultValue, spell: (text: string) => string = (t) => t): unknown {
  switch (value.type) {
    case "table":
    case "log": {
      const rows = value.rows.map((row) => {
        const keyed: Record<string, Scalar> = {};
        value.columns.forEach((column, i) => {
          keyed[column] = row[i] ?? null;
        });
        return keyed;
      });
      const out: Record<string, unknown> = { type: value.type, columns: value.columns, rows, total: value.total };
      if (value.warning) out.warning = value.warning;
      if (value.warnings) out.warnings = value.warnings;
      return out;
    }
    case "text": {
      const { endsLine, ...rest } = value;
      const out = endsLine ? { ...rest, text: `${rest.text}\n` } : rest;
      return out.note === undefined ? out : { ...out, note: spell(out.note) };
    }
    default:
      return value;
  }
}

/** What is said on stderr beside the content; --json carries the total and the note in the value, and says only why a text is short. */
function notes(value: ResultValue, json: boolean, spell: (text: string) => string, cap?: Capability): string[] {
  const out: string[] = [];
  if (value.type === "table" || value.type === "log") {
    // a capability with a --limit was cut by it: say how to see the rest
    const raise = cap?.inputs.limit && !cap.inputs.limit.positional ? "; --limit shows more" : "";
    if (!json && value.total > value.rows.length) out.push(`showing ${value.rows.length} of ${value.total}${raise}`);
    if (!json && value.warning) out.push(`${value.warning.message} (${value.warning.code})`);
  }
  if (value.type === "text") {
    if (!json && value.note !== undefined) out.push(...spell(value.note).split("\n"));
    if (value.short === "replaced")
      out.push("some bytes are not UTF-8 and were printed as U+FFFD, so this is not the file's own bytes");
  }
  return out;
}
