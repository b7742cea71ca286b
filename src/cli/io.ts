/**
 * The terminal, as one value a command is handed, so a test can run a command
 * against buffers. Only src/cli writes to the terminal.
 */
import { closeSync, fstatSync, openSync, readFileSync, readlinkSync, readSync, writeSync } from "node:fs";
import type { ChalkInstance } from "chalk";
import { RtaError } from "../core/errors.ts";
import { jsonEscaped } from "./render.ts";

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
  /** the descriptor stdout writes to, for the process's own terminal only (a follower asks whether its reader left) */
  stdoutFd?: number;
  /** the path and text of the regular file stdout writes into (`>> file`), when it is one and can be read */
  stdoutFile?(): { path: string; text: string } | undefined;
  /** the process's controlling terminal, opened itself (stdin may be a pipe); undefined when it has none. Left out: none */
  controllingTerminal?(): Tty | undefined;
}

/** A terminal opened for one question: what is written to it, one line typed back, then closed. */
export interface Tty {
  write(text: string): void;
  readLine(): string;
  close(): void;
}

/** The process's own terminal and environment; it refuses nothing, and reads stdin only when a command asks. */
export function processIo(): Io {
  return {
    out: (text) => writeOut(text),
    err: (text) => writeErr(text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: (limit) => readLimited(process.stdin, limit),
    readLine: () => readLineSync(0),
    env: process.env,
    stdoutFd: 1,
    stdoutFile,
    controllingTerminal,
  };
}

/** /dev/tty opened for reading and writing; undefined when the process has no controlling terminal (ENXIO) or may not open it. */
function controllingTerminal(): Tty | undefined {
  let fd: number;
  try {
    fd = openSync("/dev/tty", "r+");
  } catch {
    return undefined;
  }
  return {
    write: (text) => {
      writeSync(fd, text);
    },
    readLine: () => readLineSync(fd),
    close: () => closeSync(fd),
  };
}

/** The file stdout is redirected into, read by its name (on Linux, /proc/self/fd/1); undefined for anything else. */
function stdoutFile(): { path: string; text: string } | undefined {
  try {
    const st = fstatSync(1);
    // a client's config is small; a large file (a log stdout appends to) is not read back
    if (!st.isFile() || st.size > PIPE_LIMIT_BYTES) return undefined;
    const path = readlinkSync("/proc/self/fd/1");
    return { path, text: readFileSync("/proc/self/fd/1", "utf8") };
  } catch {
    return undefined; // no /proc, or a file this user cannot read back: nothing to check against
  }
}

/**
 * Thrown when stdout can take no more: its reader went away (`| head` has what
 * it wanted) or the file behind it cannot be written. main() ends the command
 * quietly on it, with the status a shell expects.
 */
export class StdoutClosed extends Error {
  constructor(readonly errno: string) {
    super(`stdout could not be written (${errno})`);
    this.name = "StdoutClosed";
  }

  /** How it is said when the reader did not just go away (a full disk behind `>`): core.output.failed. */
  refusal(): RtaError {
    return new RtaError(
      "core.output.failed",
      `the output could not be written (${this.errno})`,
      "write it somewhere with room",
    );
  }
}

/**
 * What main() returns when stdout's reader went away: 0, as ripgrep does, since
 * the reader had what it wanted and `set -o pipefail` should not call
 * `rta fs read f | head` a failure.
 */
export const EXIT_PIPE_CLOSED = 0;

/** Writes to stdout; refuses a stdout that takes no more with StdoutClosed. */
function writeOut(text: string): void {
  try {
    writeAll(1, text);
  } catch (err) {
    throw new StdoutClosed((err as NodeJS.ErrnoException).code ?? "EIO");
  }
}

/** Writes to stderr; a stderr that is closed or gone is nobody's to tell, so it is let be. */
function writeErr(text: string): void {
  try {
    writeAll(2, text);
  } catch {
    // nothing: there is no one left to say it to
  }
}

/**
 * Writes all of `text` to a descriptor, synchronously. Cheaper at start-up
 * than process.stdout, whose stream machinery costs about 10 ms to set up, and
 * it keeps output and exit status in order. A descriptor left non-blocking by
 * whoever started rta answers EAGAIN when its pipe is full: wait and go on.
 */
function writeAll(fd: number, text: string): void {
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
  // Loaded when something is first painted: a server, which paints nothing, does not evaluate chalk at start.
  const { Chalk } = require("chalk") as typeof import("chalk");
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

/**
 * A value as --json prints it: indented on a terminal, one line for a pipe,
 * always ending in a newline; the controls JSON leaves raw are escaped too
 * (see jsonEscaped), which changes no value.
 */
export function jsonText(io: Io, value: unknown): string {
  return `${jsonEscaped(io.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value))}\n`;
}

/**
 * `--color auto|always|never` (or `--color=never`) taken out of a command line,
 * wherever it stands before `--`, since it is every command's; the last one
 * given wins. Refuses a value that is none of the three as core.cli.usage.
 */
export function takeColor(argv: string[]): { argv: string[]; color?: ColorChoice } {
  const rest: string[] = [];
  let color: ColorChoice | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg !== "--color" && !arg.startsWith("--color=")) {
      rest.push(arg);
      continue;
    }
    const value = arg === "--color" ? argv[++i] : arg.slice("--color=".length);
    if (value !== "auto" && value !== "always" && value !== "never") {
      throw new RtaError(
        "core.cli.usage",
        value === undefined
          ? "--color needs a value: auto, always or never"
          : `--color takes auto, always or never, not ${JSON.stringify(value)}`,
        // piped output is plain whatever --color says: always keeps colour on a terminal that NO_COLOR or TERM=dumb would
        // take it from, and never brings it to a pipe
        "write `--color never` to turn colour off, `--color always` to keep it on a terminal despite NO_COLOR or TERM=dumb",
      );
    }
    color = value;
  }
  return color === undefined ? { argv: rest } : { argv: rest, color };
}
