/**
 * Reads the record back. A line that does not parse (a write cut short by a
 * killed process, or an edit) is counted, not fatal: the rest stays readable.
 *
 * The file is read a chunk at a time and never held whole: an agent can make
 * the record as large as the disk allows (every call is a line), and a record
 * read into one string stops being readable at all past a couple of GiB, the
 * largest string the runtime makes, and costs several times its size in
 * memory well before that.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { RtaError } from "../core/errors.ts";
import type { RecordLine } from "./append.ts";

/**
 * The longest line read back. rta writes lines of at most about 23 KiB (every
 * field a caller chooses is bounded); a longer one was not written by rta, so
 * it is counted malformed without being held, whatever its length.
 */
export const MAX_RECORD_LINE_BYTES = 1024 * 1024;

/** How much of the file is read at a time. */
const READ_CHUNK_BYTES = 1024 * 1024;

export interface RecordRead {
  lines: RecordLine[];
  /** 1-based line numbers that did not parse as a record line */
  malformed: number[];
}

/**
 * Calls `each` with every non-empty line of the file in order: its text
 * without the newline (undefined for a line past MAX_RECORD_LINE_BYTES) and
 * its 1-based number. A missing file has no lines; other errors are thrown.
 */
export function eachRecordText(path: string, each: (text: string | undefined, at: number) => void): void {
  let fd: number;
  try {
    // Non-blocking, so a FIFO in the record's place is not waited on for a writer that never comes.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // Read as another account than the servers': said as --verify says it, where it failed as core.internal.
    if (code === "EACCES" || code === "EPERM")
      throw new RtaError(
        "core.record.unavailable",
        `the record cannot be read: ${path} is not readable by this account (${code})`,
        "run it as the user the servers run as (rta doctor will say more)",
      );
    throw err;
  }
  try {
    // A dir failed as core.internal and a FIFO hung every reader; the server refuses calls on either (append.ts).
    const kind = fstatSync(fd);
    if (!kind.isFile())
      throw new RtaError(
        "fs.notfile",
        `${path} is not a file: ${kind.isDirectory() ? "a directory" : kind.isFIFO() ? "a FIFO" : "not a regular file"} is in the record's place`,
        "move it aside and put the record file back (`rta doctor` says more)",
      );
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    // The start of a line that runs past the chunk; dropped once it is known to be too long.
    let carry: Buffer[] = [];
    let carried = 0;
    let tooLong = false;
    let at = 1;
    const emit = (tail: Buffer) => {
      if (tooLong || carried + tail.length > MAX_RECORD_LINE_BYTES) each(undefined, at);
      else if (carried + tail.length > 0) {
        const whole = carried === 0 ? tail : Buffer.concat([...carry, tail]);
        each(whole.toString("utf8"), at);
      }
      carry = [];
      carried = 0;
      tooLong = false;
      at++;
    };
    for (;;) {
      const got = readSync(fd, chunk, 0, READ_CHUNK_BYTES, null);
      if (got === 0) break;
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, from);
        if (nl === -1 || nl >= got) break;
        emit(chunk.subarray(from, nl));
        from = nl + 1;
      }
      if (from < got && !tooLong) {
        carried += got - from;
        if (carried > MAX_RECORD_LINE_BYTES) {
          tooLong = true;
          carry = [];
        } else carry.push(Buffer.from(chunk.subarray(from, got)));
      }
    }
    if (carried > 0 || tooLong) emit(Buffer.alloc(0));
  } finally {
    closeSync(fd);
  }
}

/** Calls `each` with every line of the file in order, or undefined and its number for one that is no record line. */
export function eachRecordLine(path: string, each: (line: RecordLine | undefined, at: number) => void): void {
  eachRecordText(path, (text, at) => each(text === undefined ? undefined : parseLine(text), at));
}

/** The whole record, for tests and small files: what is shown to a person is read with eachRecordLine. */
export function readRecord(path: string): RecordRead {
  const out: RecordRead = { lines: [], malformed: [] };
  eachRecordLine(path, (line, at) => {
    if (line) out.lines.push(line);
    else out.malformed.push(at);
  });
  return out;
}

/** As eachRecordText, for a record already in memory: every non-empty line's text and its number from 1. */
export function eachBodyText(body: string, each: (text: string, at: number) => void): void {
  const rows = body.split("\n");
  for (let i = 0; i < rows.length; i++) if (rows[i] !== "") each(rows[i] as string, i + 1);
}

/** Every line of a record's text that parses, and the numbers of those that do not. */
export function parseRecord(body: string): RecordRead {
  const out: RecordRead = { lines: [], malformed: [] };
  eachBodyText(body, (text, at) => {
    const line = parseLine(text);
    if (line) out.lines.push(line);
    else out.malformed.push(at);
  });
  return out;
}

function parseLine(text: string): RecordLine | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (isRecordLine(value)) return value;
  } catch {
    // falls through: counted as malformed by the caller
  }
  return undefined;
}

function isRecordLine(value: unknown): value is RecordLine {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.time === "string" &&
    typeof v.session === "string" &&
    typeof v.seq === "number" &&
    typeof v.agent === "string" &&
    typeof v.capability === "string" &&
    typeof v.outcome === "string" &&
    typeof v.duration_ms === "number" &&
    Array.isArray(v.args)
  );
}
