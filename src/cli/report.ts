/**
 * How an error reaches a person: `rta: error: <message> (<code>)` and
 * `rta: hint: <hint>` on stderr, and the exit status from the code catalogue.
 * With --json the error value is also printed on stdout, so a script that
 * reads stdout sees what failed.
 */
import { Exit, type RtaError } from "../core/errors.ts";
import { errorResult } from "../core/result.ts";
import type { Io } from "./io.ts";
import { jsonEscaped, shown } from "./render.ts";

/**
 * Says a refusal on stderr (and on stdout too with --json) and returns its
 * exit status; it never throws. The message and hint are shown escaped: they
 * quote what was typed, a file's name, a server's answer, and JSON.stringify
 * leaves C1 controls and bidi overrides raw.
 */
export function reportError(io: Io, err: RtaError, json: boolean): number {
  io.err(`rta: error: ${shown(err.message)} (${err.code})\n`);
  if (err.hint) io.err(`rta: hint: ${shown(err.hint)}\n`);
  if (json) io.out(`${jsonEscaped(JSON.stringify(errorResult(err)))}\n`);
  return err.exit;
}

/** Says a command line that does not parse, as core.cli.usage with its hint, both escaped (they echo what was typed); returns the usage status. */
export function reportUsage(io: Io, message: string, hint: string): number {
  io.err(`rta: error: ${shown(message)} (core.cli.usage)\n`);
  io.err(`rta: hint: ${shown(hint)}\n`);
  return Exit.usage;
}
