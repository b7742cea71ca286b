/**
 * `rta agent log --follow`: the record's lines so far, then the lines added
 * since, looked for every poll: the data dir's file as it grows (agentLog.ts),
 * or a PostgreSQL store's record, each session's lines as they are committed.
 */
import { Exit, RtaError } from "../core/errors.ts";
import type { RecordLine } from "../record/line.ts";
import { Batched, lineFor } from "./agentLogLines.ts";
import type { Cli } from "./factory.ts";
import type { Form } from "./io.ts";
import { readerLeft } from "./listing.ts";

/** How often the store is asked for new lines. */
export const STORE_POLL_MS = 500;

/** A record read as it grows: a file's (agentLog.ts) or a store's (PgRecordReader). */
export interface LineTail {
  /** each line so far (undefined for one that is no record line); what `fresh` gives next starts after them */
  eachLine(each: (line: RecordLine | undefined) => void): void;
  /** the lines added since the last look */
  fresh(): RecordLine[];
}

/**
 * Prints each matching line of the record, then each one added after, every
 * `pollMs`: each poll's lines are written at once, so a pipe sees them as
 * they come. Ends at SIGINT (130, as `rta log tail --follow` does), SIGTERM
 * (143) or a reader that went away (`| head`, 0). Refuses only what the
 * record's first reading throws (a store that cannot be read: core.store.unavailable); one that stops answering
 * after is waited for.
 */
export async function follow(
  cli: Cli,
  tail: LineTail,
  match: (l: RecordLine) => boolean,
  form: Form,
  pollMs: number,
): Promise<number> {
  const { io } = cli;
  let stopped = 0;
  const onInt = () => {
    stopped = 128 + 2;
  };
  const onTerm = () => {
    stopped = 128 + 15;
  };
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  // piped to a reader that may leave (`| head`): asked each poll, so following ends when the reader does
  const gone =
    io.stdoutFd !== undefined && !io.stdoutIsTTY
      ? (await import("./readerGone.ts")).readerGone(io.stdoutFd)
      : () => false;
  try {
    const out = new Batched(io);
    tail.eachLine((l) => {
      if (l && match(l)) out.add(`${lineFor(form, l)}\n`);
    });
    out.flush();
    // A store that stops answering (a restart, a failover) is waited for, as a record file gone is: said once on
    // stderr when it stops and once when it answers again.
    let away = false;
    while (stopped === 0 && !gone()) {
      await Bun.sleep(pollMs);
      let fresh: RecordLine[];
      try {
        fresh = tail.fresh();
      } catch (err) {
        if (!(err instanceof RtaError)) throw err;
        if (!away) io.err(`rta: the record cannot be read just now (${err.message}): waiting for it\n`);
        away = true;
        continue;
      }
      if (away) io.err("rta: the record reads again\n");
      away = false;
      for (const l of fresh) if (match(l)) out.add(`${lineFor(form, l)}\n`);
      out.flush();
    }
    return stopped === 0 ? Exit.ok : stopped;
  } catch (err) {
    // the reader went away (`| head`): following is over, and that is no failure
    if (readerLeft(err)) return Exit.ok;
    throw err;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
