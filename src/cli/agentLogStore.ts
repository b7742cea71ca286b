/**
 * `rta agent log --follow` on a PostgreSQL store's record: the lines so far,
 * then each session's lines as they are committed, looked for every poll.
 */
import { Exit, RtaError } from "../core/errors.ts";
import type { PgRecordReader } from "../gate/store/pgRecordRead.ts";
import type { RecordLine } from "../record/line.ts";
import { Batched, lineFor } from "./agentLogLines.ts";
import type { Cli } from "./factory.ts";
import type { Form } from "./io.ts";
import { readerLeft } from "./listing.ts";

/** How often the store is asked for new lines. */
const STORE_POLL_MS = 500;

/**
 * Prints each matching line of the store's record, then each one committed
 * after, until SIGINT (130), SIGTERM (143) or a reader that went away (`|
 * head`, 0). Refuses (core.store.unavailable, thrown) a store it cannot read at first; one that stops answering
 * later is waited for.
 */
export async function followStore(
  cli: Cli,
  store: PgRecordReader,
  match: (l: RecordLine) => boolean,
  form: Form,
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
  const gone =
    io.stdoutFd !== undefined && !io.stdoutIsTTY
      ? (await import("./readerGone.ts")).readerGone(io.stdoutFd)
      : () => false;
  try {
    const out = new Batched(io);
    store.eachLine((l) => {
      if (l && match(l)) out.add(`${lineFor(form, l)}\n`);
    });
    out.flush();
    // A store that stops answering (a restart, a failover) is waited for, as a record file gone is: said once
    // on stderr when it stops and once when it answers again.
    let away = false;
    while (stopped === 0 && !gone()) {
      await Bun.sleep(STORE_POLL_MS);
      let fresh: RecordLine[];
      try {
        fresh = store.fresh();
      } catch (err) {
        if (!(err instanceof RtaError) || away) continue;
        away = true;
        io.err(`rta: the store's record cannot be read just now (${err.message}): waiting for it\n`);
        continue;
      }
      if (away) io.err("rta: the store's record reads again\n");
      away = false;
      for (const l of fresh) if (match(l)) out.add(`${lineFor(form, l)}\n`);
      out.flush();
    }
    return stopped === 0 ? Exit.ok : stopped;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    throw err;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
