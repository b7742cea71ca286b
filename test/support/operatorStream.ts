/** Runs `rta operator` piped, as a script watching the servers would, and reads its JSON lines as they come. */
import type { Subprocess } from "bun";
import { prepareDataDir, RTA } from "./rta.ts";

export interface Watching {
  /** every event so far */
  events: Record<string, unknown>[];
  /** resolves with the first event (so far or to come) that `match` takes */
  next: (match: (e: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
  stop: () => Promise<{ code: number; stderr: string }>;
  proc: Subprocess;
}

/** Starts `rta operator` with `env` and resolves once it has heard `servers` servers' hellos. */
export async function watchOperator(env: Record<string, string>, servers = 1): Promise<Watching> {
  await prepareDataDir(env.RTA_DATA_DIR);
  const proc = Bun.spawn([RTA, "operator"], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const events: Record<string, unknown>[] = [];
  let waiters: { match: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }[] = [];
  void (async () => {
    let carry = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      carry += new TextDecoder().decode(chunk);
      const lines = carry.split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) {
        const e = JSON.parse(line) as Record<string, unknown>;
        events.push(e);
        waiters = waiters.filter((w) => {
          if (!w.match(e)) return true;
          w.resolve(e);
          return false;
        });
      }
    }
  })();
  const next = (match: (e: Record<string, unknown>) => boolean) => {
    const seen = events.find(match);
    return seen
      ? Promise.resolve(seen)
      : new Promise<Record<string, unknown>>((resolve) => waiters.push({ match, resolve }));
  };
  let hellos = 0;
  await next((e) => e.event === "server" && ++hellos >= servers);
  return {
    events,
    next,
    proc,
    stop: async () => {
      proc.kill("SIGINT");
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      return { code, stderr };
    },
  };
}
