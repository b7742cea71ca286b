/**
 * How an error reaches a person: `rta: error: <message> (<code>)` and
 * `rta: hint: <hint>` on stderr, and the exit status from the code catalogue.
 * With --json the error value is also printed on stdout, so a script that
 * reads stdout sees what failed.
 */
import { asRtaError, Exit, RtaError } from "../core/errors.ts";
import { errorResult } from "../core/result.ts";
import { type Io, StdoutClosed } from "./io.ts";
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

/**
 * What a command's failure `err` is said as: a refusal as itself, a full
 * stdout as core.output.failed, a denied or full data dir in its own words,
 * anything else as core.internal saying `what` could not be done, with its
 * stack on stderr under RTA_DEBUG as the hint says.
 */
export function refusalOf(io: Io, err: unknown, what: string): RtaError {
  if (err instanceof RtaError) return err;
  if (err instanceof StdoutClosed) return err.refusal();
  const said = asRtaError(err);
  if (said.code === "core.internal") {
    if (io.env.RTA_DEBUG) io.err(`${(err as Error)?.stack ?? String(err)}\n`);
    return new RtaError(said.code, what, said.hint);
  }
  // the system's words (denied, full, read-only); a denied data dir is mended by its owner
  const hint = said.code === "fs.denied" ? "run it as the person who owns rta's data dir" : said.hint;
  return new RtaError(said.code, `${what}: ${said.message}`, hint);
}
