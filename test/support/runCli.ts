/**
 * Runs a command line in-process, as rta() runs the built binary and with the
 * same answer (exit status, stdout, stderr), against a factory of fakes: the
 * terminal is buffers (a terminal or not), the clock is fixed unless a test
 * hands in its own, and the data and config dirs are temp dirs. Piped stdin is
 * read through the same limit the process's stdin is. What only the compiled
 * binary does (its --version fast path, a real pipe, a real terminal) is
 * tested against dist/rta in test/e2e/cli.test.ts.
 */
import { makeCli } from "../../src/cli/factory.ts";
import { type Io, readLimited } from "../../src/cli/io.ts";
import { main } from "../../src/cli/program.ts";
import type { Catalogue } from "../../src/core/catalogue.ts";
import type { Clock } from "../../src/core/deps.ts";
import type { Deps } from "../../src/gate/deps.ts";
import { fixedClock, tempDir } from "./fixtures.ts";
import { noteCatalogue } from "./plugins.ts";
import type { Ran } from "./rta.ts";

/** The instant a test's clock is fixed at, unless it hands in its own: 2023-11-14T22:13:20Z. */
export const TEST_NOW_MS = 1_700_000_000_000;

/** How much of a piped input one read hands over, as a pipe's buffer would. */
const PIPE_CHUNK_BYTES = 64 * 1024;

export interface RunOptions {
  /** what is piped in, or with tty the lines typed at the terminal; left out, stdin is empty, as rta()'s "ignore" */
  stdin?: string;
  /** added to the environment rta() gives: PATH, and a temp HOME, data dir and config dir */
  env?: Record<string, string>;
  /** stdout, stderr and stdin are a terminal, as under `script` */
  tty?: boolean;
  /** the clock the commands and the stages read (default: fixed at TEST_NOW_MS) */
  clock?: Clock;
  /** lines typed on the process's controlling terminal (/dev/tty), what it writes there going to the screen; left out, it has none */
  devTty?: string;
  /** makes the catalogue (default: the built-ins and the note plugin, as installed: see noteCatalogue) */
  catalogue?: () => Catalogue;
}

/** Runs `rta <args>` in-process and returns its exit status and what it printed on each stream; never the process's own stdio. */
export async function runCli(args: string[], options: RunOptions = {}): Promise<Ran> {
  const { code, stdout, stderr } = await ran(args, options);
  return { code, stdout, stderr };
}

/** Runs `rta <args>` in-process on a terminal, and returns its exit status and the screen: both streams as written. */
export async function onScreen(args: string[], options: RunOptions = {}): Promise<{ code: number; screen: string }> {
  const { code, screen } = await ran(args, { ...options, tty: true });
  return { code, screen };
}

async function ran(args: string[], options: RunOptions): Promise<Ran & { screen: string }> {
  const out = { code: 0, stdout: "", stderr: "", screen: "" };
  const tty = options.tty === true;
  let typed = options.stdin ?? "";
  const io: Io = {
    out: (text) => {
      out.stdout += text;
      out.screen += text;
    },
    err: (text) => {
      out.stderr += text;
      out.screen += text;
    },
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: tty,
    readStdin: (limit) => readLimited(piped(options.stdin ?? ""), limit),
    readLine: () => {
      const [line = "", ...rest] = typed.split("\n");
      typed = rest.join("\n");
      return line;
    },
    ...(options.devTty === undefined
      ? {}
      : {
          controllingTerminal: () => {
            let lines = options.devTty ?? "";
            return {
              write: (text: string) => {
                out.screen += text;
              },
              readLine: () => {
                const [line = "", ...rest] = lines.split("\n");
                lines = rest.join("\n");
                return line;
              },
              close: () => {},
            };
          },
        }),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: tempDir(),
      RTA_DATA_DIR: tempDir(),
      RTA_CONFIG_DIR: tempDir(),
      ...options.env,
    },
  };
  const withNote = await noteCatalogue();
  const cli = makeCli({
    io,
    clock: options.clock ?? fixedClock(TEST_NOW_MS),
    catalogue: options.catalogue ?? (() => withNote),
  });
  const closeStore = closingStore(cli);
  try {
    out.code = await main(args, cli);
  } finally {
    closeStore();
  }
  return out;
}

/** The text as a pipe hands it over, a chunk at a time. */
async function* piped(text: string): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let off = 0; off < bytes.length; off += PIPE_CHUNK_BYTES) yield bytes.subarray(off, off + PIPE_CHUNK_BYTES);
}

/**
 * Makes the factory's store one a test can close: a process's store closes when it exits, and a run in-process
 * would otherwise leave its database open until the whole test run ends.
 */
function closingStore(cli: ReturnType<typeof makeCli>): () => void {
  const makeDeps = cli.deps;
  let made: Deps | undefined;
  let store: ReturnType<Deps["gate"]> | undefined;
  cli.deps = () => {
    if (!made) {
      made = makeDeps();
      const open = made.gate;
      made.gate = () => {
        store ??= open();
        return store;
      };
    }
    return made;
  };
  return () => store?.close();
}
