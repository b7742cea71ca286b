/**
 * How far a long walk has got, for a person watching a terminal, as ripgrep
 * and du show it: on stderr, one line overwritten in place and cleared at the
 * end, only once the walk has run past about a second, and only when both
 * stdout and stderr are a terminal, so nothing of it reaches a pipe or a file.
 */
import type { Seen } from "../core/capability.ts";
import { bytesWords } from "../core/words.ts";
import type { Io } from "./io.ts";

/** A walk that ends sooner shows nothing: a person would not have wondered yet. */
export const PROGRESS_AFTER_MS = 1000;
/** The line is redrawn at most this often, so a fast walk is not slowed by its own progress. */
export const REDRAW_MS = 100;
/** A walk that told nothing for this long is over, or stuck: the line may say what the call waits on instead. */
export const WALK_QUIET_MS = 500;
/** How often a call that asks a service looks whether to say it is waiting. */
export const WAITING_TICK_MS = 250;

export interface ProgressLine {
  /** what the walk has seen so far; drawn when it is time */
  tell(seen: Seen): void;
  /**
   * that the call is waiting on `service` (endoflife.date, a cluster), for a read that asks one: drawn once the call
   * has run past about a second and no walk has told anything for half a second, so a person does not stare at a
   * silent terminal for the 10 s a service that drops packets takes to give up
   */
  waiting(service: string): void;
  /** takes the line away, if one was drawn */
  clear(): void;
}

/**
 * The progress line for this terminal, or undefined when stdout or stderr is
 * not a terminal. `now` is the time in milliseconds (a test's own clock).
 * Refuses nothing.
 */
export function progressLine(io: Io, now: () => number = () => performance.now()): ProgressLine | undefined {
  if (!io.stdoutIsTTY || io.stderrIsTTY !== true) return undefined;
  const started = now();
  let last = Number.NEGATIVE_INFINITY;
  let told = Number.NEGATIVE_INFINITY;
  let width = 0;
  let drawn = "";
  const draw = (line: string) => {
    if (line === drawn) return; // the same words again would only make the terminal work
    drawn = line;
    // spaces, not an escape code, wipe what a longer line left: a dumb terminal shows no stray codes
    io.err(`\r${line}${" ".repeat(Math.max(0, width - line.length))}`);
    width = Math.max(width, line.length);
  };
  return {
    tell(seen) {
      const at = now();
      told = at;
      if (at - started < PROGRESS_AFTER_MS || at - last < REDRAW_MS) return;
      last = at;
      draw(`${seen.files} ${seen.files === 1 ? "entry" : "entries"}, ${bytesWords(seen.bytes)} seen`);
    },
    waiting(service) {
      const at = now();
      if (at - started < PROGRESS_AFTER_MS || at - told < WALK_QUIET_MS || at - last < REDRAW_MS) return;
      last = at;
      draw(`asking ${service}, ${Math.floor((at - started) / 1000)} s`);
    },
    clear() {
      if (width > 0) io.err(`\r${" ".repeat(width)}\r`);
      width = 0;
      drawn = "";
    },
  };
}
