/**
 * A child process, as a capability is handed one (core/access.ts Spawn): a
 * system tool run from an argument array, never through a shell, with
 * LC_ALL=C so its output parses the same everywhere, a fixed PATH (and the
 * operator's HOME and KUBECONFIG), no stdin,
 * the call's abort signal and a time limit whatever the tool was asked, and
 * its output kept up to a size.
 */
import type { Spawn, Spawned } from "../core/access.ts";

/** How long a tool may run at most, whatever it was asked. */
const TOOL_TIMEOUT_MS = 60_000;
/**
 * The bytes kept of what a tool writes, each stream: kubectl lists what a cluster holds, which may be anyone's (a
 * tenant's pods), and all of it held, then parsed, would have the server take gigabytes. Past it the tool is killed.
 */
export const TOOL_OUTPUT_BYTES = 128 * 1024 * 1024;
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

/**
 * Runs `argv` until it ends, is killed at the time limit, or the signal aborts it; undefined when it is not installed,
 * or is named by a relative path (`bin/kubectl`, the operator's setting): that is found from wherever rta runs, which
 * may be a root an agent writes, so it is never run.
 */
async function runTool(argv: readonly string[], signal?: AbortSignal): Promise<Spawned | undefined> {
  const tool = argv[0] ?? "";
  if (tool.includes("/") && !tool.startsWith("/")) return undefined;
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
  const over = () => proc.kill("SIGKILL");
  const [out, err, code] = await Promise.all([
    kept(proc.stdout as ReadableStream<Uint8Array>, over),
    kept(proc.stderr as ReadableStream<Uint8Array>, over),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout: out.text, stderr: err.text, ...(out.cut || err.cut ? { cut: true } : {}) };
}

/** A stream's text up to TOOL_OUTPUT_BYTES; past it `over` is called once and the rest is read but not kept. */
async function kept(stream: ReadableStream<Uint8Array>, over: () => void): Promise<{ text: string; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for await (const chunk of stream) {
    if (cut) continue;
    if (size + chunk.length > TOOL_OUTPUT_BYTES) {
      chunks.push(chunk.subarray(0, TOOL_OUTPUT_BYTES - size));
      cut = true;
      over();
      continue;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), cut };
}

/** The Spawn one call is handed: runTool bound to the call's abort signal; refuses nothing itself. */
export function spawnFor(signal: AbortSignal): Spawn {
  return (argv) => runTool(argv, signal);
}
