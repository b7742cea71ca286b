/**
 * `rta log tail --follow`, for a person only: once log.tail has shown the
 * last lines through the gate, the lines appended after them are printed as
 * they come, as `tail -F` does: a log rotated or truncated under its name is
 * followed from the start of the new file, with a note on stderr. It ends on
 * Ctrl-C (exit 130) and quietly when whatever reads stdout goes away
 * (`| head`). An agent never gets it: a tool call answers once.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { compileLiteral, LINE_MATCH_CHARS, loadPatterns, type TextMatcher } from "../core/pattern.ts";
import type { Cli } from "./factory.ts";
import { readerLeft } from "./listing.ts";
import { logLine } from "./plain.ts";
import { jsonEscaped, shown } from "./render.ts";

/** How often the file is looked at for new lines: a person sees a line within this, and an idle log costs nothing. */
export const FOLLOW_POLL_MS = 200;
/** At most this much is read in one look, so a log that grows by gigabytes is printed in steps. */
const READ_STEP_BYTES = 1024 * 1024;
/** Exit status on Ctrl-C, as a shell reports a command ended by SIGINT. */
const INTERRUPTED = 130;

/** Adds --follow to `rta log tail`, when the command line built it. Refuses nothing. */
export function addLogFollow(program: Command, cli: Cli): void {
  const tail = program.commands.find((c) => c.name() === "log")?.commands.find((c) => c.name() === "tail");
  if (!tail) return;
  tail.option("--follow", "go on printing lines as they are appended, until Ctrl-C (not a tool input)");
  // Where the file ended before log.tail read it: following from there loses no line appended while it ran
  // (one appended just then may be printed twice, as the last lines and as new).
  let before: Stats | undefined;
  tail.hook("preAction", (cmd) => {
    const path = cmd.args[0];
    if (cmd.opts().follow === true && path !== undefined) before = statOf(resolve(path));
  });
  tail.hook("postAction", async (cmd) => {
    const opts = cmd.opts() as { follow?: boolean; filter?: string; json?: boolean };
    const path = cmd.args[0];
    if (opts.follow !== true || cli.status !== 0 || path === undefined) return;
    cli.status = await followLog(cli, resolve(path), { filter: opts.filter, json: opts.json === true, from: before });
  });
}

/**
 * Prints the lines appended to `file` after `from` (what was at its name
 * before; left out, what is there now), filtered as
 * log.tail filters (plain text in a line's first LINE_MATCH_CHARS), until
 * Ctrl-C. Returns the exit status: 130 on Ctrl-C, 0 once stdout is closed. Refuses nothing: a file gone is
 * waited for, as `tail -F` waits.
 */
async function followLog(
  cli: Cli,
  file: string,
  opts: { filter?: string; json?: boolean; from?: Stats },
): Promise<number> {
  const { io } = cli;
  if (opts.filter !== undefined) await loadPatterns();
  const filter: TextMatcher | undefined = opts.filter === undefined ? undefined : compileLiteral("filter", opts.filter);
  let interrupted = false;
  const onInt = () => {
    interrupted = true;
  };
  process.once("SIGINT", onInt);
  // A line is someone else's text: escaped as log.tail's own result is printed, piped (plain.ts), on a terminal
  // (render.ts) and in JSON (the controls JSON.stringify leaves raw, C1 and bidi, written as \uXXXX).
  const line = (text: string): string => {
    if (opts.json) return `${jsonEscaped(JSON.stringify({ text }))}\n`;
    return `${io.stdoutIsTTY ? shown(text) : logLine(text)}\n`;
  };
  let at = opts.from ?? statOf(file);
  let offset = at?.size ?? 0;
  let carry = Buffer.alloc(0);
  try {
    while (!interrupted) {
      await Bun.sleep(FOLLOW_POLL_MS);
      const now = statOf(file);
      if (now === undefined) continue; // rotated away and not back yet
      if (at === undefined || now.ino !== at.ino || now.dev !== at.dev || now.size < offset) {
        if (at !== undefined)
          io.err(`rta: ${JSON.stringify(file)} was replaced or truncated: following it from its start\n`);
        offset = 0;
        carry = Buffer.alloc(0);
      }
      at = now;
      if (now.size === offset) continue;
      const got = readFrom(file, offset, Math.min(now.size - offset, READ_STEP_BYTES));
      offset += got.length;
      const bytes = Buffer.concat([carry, got]);
      const end = bytes.lastIndexOf(0x0a);
      carry = bytes.subarray(end + 1);
      if (end === -1) continue;
      let out = "";
      for (const text of bytes.toString("utf8", 0, end).split("\n"))
        if (filter === undefined || filter.test(text.slice(0, LINE_MATCH_CHARS))) out += line(text);
      if (out !== "") io.out(out);
    }
  } catch (err) {
    if (readerLeft(err)) return 0; // `| head` has what it wanted
    throw err;
  } finally {
    process.removeListener("SIGINT", onInt);
  }
  return interrupted ? INTERRUPTED : 0;
}

/** What is at the name now, if it is a file. */
function statOf(file: string): Stats | undefined {
  try {
    const st = statSync(file);
    return st.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}

/** Up to `length` bytes from `offset`; a FIFO swapped in since it was looked at is not waited on. */
function readFrom(file: string, offset: number, length: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return Buffer.alloc(0);
  }
  try {
    if (!fstatSync(fd).isFile()) return Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
