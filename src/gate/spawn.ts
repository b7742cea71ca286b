/**
 * A child process, as a capability is handed one (core/access.ts Spawn): a
 * system tool run from an argument array, never through a shell, with
 * LC_ALL=C so its output parses the same everywhere, a fixed PATH (and the
 * operator's HOME and KUBECONFIG), no stdin,
 * the call's abort signal and a time limit whatever the tool was asked.
 */
import type { Spawn, Spawned } from "../core/access.ts";

/** How long a tool may run at most, whatever it was asked. */
const TOOL_TIMEOUT_MS = 60_000;
/**
 * Where a tool is looked for: the system's own dirs, never the caller's PATH, which may name a dir an agent can
 * write (`.` in a root).
 */
export const TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/**
 * What a tool sees of the environment: LC_ALL and the fixed PATH, and the operator's own HOME and KUBECONFIG where
 * they are set (kubectl finds its config, the current context and its credentials by them). None is an agent's input.
 */
const TOOL_ENV: Record<string, string> = {
  LC_ALL: "C",
  PATH: TOOL_PATH,
  ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
  ...(process.env.KUBECONFIG ? { KUBECONFIG: process.env.KUBECONFIG } : {}),
};

/** Runs `argv` until it ends, is killed at the time limit, or the signal aborts it; undefined when it is not installed. */
async function runTool(argv: readonly string[], signal?: AbortSignal): Promise<Spawned | undefined> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn([...argv], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: TOOL_ENV,
      ...(signal ? { signal } : {}),
    });
  } catch {
    return undefined; // not installed
  }
  const timer = setTimeout(() => proc.kill(), TOOL_TIMEOUT_MS);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The Spawn one call is handed: runTool bound to the call's abort signal; refuses nothing itself. */
export function spawnFor(signal: AbortSignal): Spawn {
  return (argv) => runTool(argv, signal);
}
