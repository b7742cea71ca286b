/** Starts dist/rta mcp serve --http on a free loopback port, with its own data and config dirs. */
import type { Subprocess } from "bun";
import { tempDir } from "./fixtures.ts";
import { prepareDataDir, RTA, rta } from "./rta.ts";

export interface RunningHttp {
  url: string;
  port: number;
  env: Record<string, string>;
  stderr: () => string;
  token: (agent: string) => Promise<string>;
  stop: () => Promise<void>;
  proc: Subprocess;
}

export async function startHttp(args: string[] = [], dirs?: { data: string; config: string }): Promise<RunningHttp> {
  const data = dirs?.data ?? tempDir();
  const config = dirs?.config ?? tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  await prepareDataDir(data);
  const proc = Bun.spawn([RTA, "mcp", "serve", "--http", "127.0.0.1:0", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: data, ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  let err = "";
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  let port = 0;
  const deadline = Date.now() + 10_000;
  while (!port && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    err += new TextDecoder().decode(value);
    port = Number(err.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1] ?? 0);
  }
  if (!port) throw new Error(`rta did not start: ${err}`);
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += new TextDecoder().decode(value);
    }
  })();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    env,
    stderr: () => err,
    token: async (agent) =>
      JSON.parse((await rta(["mcp", "token", "new", "--agent", agent, "--json"], { env })).stdout).token,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
    proc,
  };
}
