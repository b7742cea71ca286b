/** Runs the built binary, as a person or a script would. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./fixtures.ts";

export const RTA = join(import.meta.dir, "..", "..", "dist", "rta");

/**
 * Run on the data dir before the binary starts there (rta(), connect(),
 * onTerminal()): a test file that calls useNotePlugin() adds the note
 * plugin's install here, so every data dir it runs rta in has it.
 */
export const beforeDataDir: ((dataDir: string) => Promise<void>)[] = [];

/** Runs the hooks of beforeDataDir on `dataDir`; refuses nothing of its own. */
export async function prepareDataDir(dataDir: string | undefined): Promise<void> {
  if (dataDir === undefined) return;
  for (const hook of beforeDataDir) await hook(dataDir);
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export async function rta(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<Ran> {
  if (!existsSync(RTA)) throw new Error("dist/rta is missing: run `npm run build` first");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: tempDir(),
    RTA_DATA_DIR: tempDir(),
    RTA_CONFIG_DIR: tempDir(),
    ...options.env,
  };
  await prepareDataDir(env.RTA_DATA_DIR);
  const proc = Bun.spawn([RTA, ...args], {
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** True when the text holds nothing that looks like a stack trace. */
export function noStack(text: string): boolean {
  return !/^\s+at .+[:(]/m.test(text) && !text.includes("Error:") && !text.includes("node_modules");
}
