/**
 * The terminal, as one value a command is handed, so a test can run a command
 * against buffers. Only src/cli writes to the terminal.
 */
import { readSync, writeSync } from "node:fs";
import { Chalk, type ChalkInstance } from "chalk";
import { RtaError } from "../core/errors.ts";

/** A token or document read from a pipe; more than this is not what such an input holds. */
export const PIPE_LIMIT_BYTES = 1024 * 1024;

export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdoutIsTTY: boolean;
  /** left out: not a terminal (a test's buffers) */
  stderrIsTTY?: boolean;
  stdinIsTTY: boolean;
  /** the whole of stdin, refused past `limit` bytes while it is read */
  readStdin(limit: number): Promise<string>;
  /** one line typed at the terminal, without its newline; "" at the end of the input */
  readLine(): string;
  env: Record<string, string | undefined>;
  /** --color as given on the command line; left out, auto */
  color?: ColorChoice;
}

/** The process's own terminal and environment; it refuses nothing, and reads stdin only when a command asks. */
export function processIo(): Io {
  return {
    out: (text) => writeAll(1, text),
    err: (text) => writeAll(2, text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: (limit) => readLimited(process.stdin, limit),
    readLine: () => readLineSync(0),
    env: process.env,
  };
}

/**
 * Writes all of `text` to a descriptor, synchronously. Cheaper at start-up
 * than process.stdout, whose stream machinery costs about 10 ms to set up, and
 * it keeps output and exit status in order. A descriptor left non-blocking by
 * whoever started rta answers EAGAIN when its pipe is full: wait and go on.
 */
export function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      Bun.sleepSync(1);
    }
  }
}

/**
 * One line read from a descriptor a byte at a time (so nothing past it is
 * taken), without its newline; "" at the end of the input, and for a line
 * over 1 KiB, which is still read to its end so none of it is left for
 * whatever reads the terminal next (a shell would run it). Refuses nothing.
 */
export function readLineSync(fd: number): string {
  const bytes: number[] = [];
  const one = Buffer.alloc(1);
  let over = false;
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, one, 0, 1, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        Bun.sleepSync(1);
        continue;
      }
      break; // a terminal gone: no answer
    }
    if (n === 0 || one[0] === 0x0a) break;
    if (bytes.length < 1024) bytes.push(one[0] as number);
    else over = true;
  }
  return over ? "" : Buffer.from(bytes).toString("utf8").replace(/\r$/, "");
}

/** The whole of a stream as text; refuses it (core.input.toolarge) as soon as more than `limit` bytes have come. */
export async function readLimited(input: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    size += buf.length;
    if (size > limit) {
      throw new RtaError(
        "core.input.toolarge",
        `the input piped in is larger than ${limit / 1024} KiB`,
        "pipe in only the value the input takes",
      );
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** When to colour: `--color auto|always|never`; auto follows the terminal and the environment. */
export type ColorChoice = "auto" | "always" | "never";

/**
 * Colour as gh and ripgrep decide it: `--color never` or a non-empty
 * NO_COLOR turns it off, `--color always` or a non-empty FORCE_COLOR (other
 * than "0") turns it on, and otherwise only a terminal whose TERM is not
 * "dumb" gets it.
 */
export function paint(io: Io): ChalkInstance {
  return new Chalk({ level: colours(io) ? 1 : 0 });
}

function colours(io: Io): boolean {
  const set = (v: string | undefined) => v !== undefined && v !== "";
  if (io.color === "never") return false;
  if (io.color === "always") return true;
  if (set(io.env.NO_COLOR)) return false;
  if (set(io.env.FORCE_COLOR) && io.env.FORCE_COLOR !== "0") return true;
  return io.stdoutIsTTY && io.env.TERM !== "dumb";
}

/**
 * How a command prints its content, after gh: for a person on a terminal
 * (tables with a header, colour, units, relative times), plain when stdout is
 * a pipe or a file (a table is tab-separated rows without a header, a text is
 * itself byte for byte, an object is `key<TAB>value` lines, a single value is
 * just that), and JSON only when --json asks, anywhere.
 */
export type Form = "terminal" | "plain" | "json";

/** The form for this command's stdout; --json wins, then the terminal decides. */
export function outputForm(io: Io, json: boolean | undefined): Form {
  if (json === true) return "json";
  return io.stdoutIsTTY ? "terminal" : "plain";
}

/** A value as --json prints it: indented on a terminal, one line for a pipe, always ending in a newline. */
export function jsonText(io: Io, value: unknown): string {
  return `${io.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`;
}

/**
 * @deprecated JSON whenever piped was wrong (issue 14): use outputForm. Kept
 * only until every command is moved over.
 */
export function wantsJson(io: Io, json: boolean | undefined): boolean {
  return json === true || !io.stdoutIsTTY;
}
