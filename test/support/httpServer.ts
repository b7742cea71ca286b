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
  /** POSTs a bare 2025-11-25 initialize with `token`, as client `client`; the server's response as it comes */
  initialize: (token: string, client?: string) => Promise<Response>;
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
  const url = `http://127.0.0.1:${port}/mcp`;
  return {
    url,
    port,
    env,
    stderr: () => err,
    token: async (agent) =>
      JSON.parse((await rta(["mcp", "token", "new", "--agent", agent, "--json"], { env })).stdout).token,
    initialize: (token, client = "raw") =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: client, version: "1" } },
        }),
      }),
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
    proc,
  };
}
