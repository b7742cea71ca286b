/**
 * The terminal, as one value a command is handed, so a test can run a command
 * against buffers. Only src/cli writes to the terminal.
 */
import { Chalk, type ChalkInstance } from "chalk";
import { RtaError } from "../core/errors.ts";

/** A token or document read from a pipe; more than this is not what such an input holds. */
export const PIPE_LIMIT_BYTES = 1024 * 1024;

export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdoutIsTTY: boolean;
  stdinIsTTY: boolean;
  /** the whole of stdin, refused past `limit` bytes while it is read */
  readStdin(limit: number): Promise<string>;
  env: Record<string, string | undefined>;
}

export function processIo(): Io {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: readProcessStdin,
    env: process.env,
  };
}

async function readProcessStdin(limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buf = chunk as Buffer;
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

/** Colour only on a terminal, and never when NO_COLOR is set to anything. */
export function paint(io: Io): ChalkInstance {
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "";
  return new Chalk({ level: noColor || !io.stdoutIsTTY ? 0 : 1 });
}

/** JSON when asked, and whenever stdout is not a terminal (a pipe or a file), so scripts get a stable form. */
export function wantsJson(io: Io, json: boolean | undefined): boolean {
  return json === true || !io.stdoutIsTTY;
}
