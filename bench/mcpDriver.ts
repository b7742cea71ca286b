/**
 * A bare JSON-RPC driver for a stdio MCP server: no client library in the
 * measurement, so the figures are the server's.
 */
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export class Driver {
  private nextId = 1;
  private buffer = "";
  private readonly waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;

  constructor(cmd: string[], env: Record<string, string>) {
    this.proc = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env }) as Subprocess<
      "pipe",
      "pipe",
      "pipe"
    >;
    void this.read();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      this.buffer += decoder.decode(chunk, { stream: true });
      let nl = this.buffer.indexOf("\n");
      while (nl !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim()) {
          const msg = JSON.parse(line) as Record<string, unknown>;
          const done = this.waiting.get(msg.id as number);
          if (done) {
            this.waiting.delete(msg.id as number);
            done(msg);
          }
        }
        nl = this.buffer.indexOf("\n");
      }
    }
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const p = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    void this.proc.stdin.flush();
    return p;
  }

  notify(method: string): void {
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  async initialize(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    this.notify("notifications/initialized");
  }

  /**
   * Ends the session and returns the server's peak resident memory in bytes.
   * It is read from VmHWM while the server still runs: that is the peak since
   * its exec, whereas a child's rusage may also count the pages it shared with
   * this process between fork and exec. A server that already ended (it
   * refused a request by ending the session) falls back to rusage.
   */
  async close(): Promise<{ maxRSS: number }> {
    const hwm = peakSinceExec(this.proc.pid);
    try {
      await this.proc.stdin.end();
    } catch {
      // the server closed its end first
    }
    await this.proc.exited;
    return { maxRSS: hwm ?? this.proc.resourceUsage()?.maxRSS ?? 0 };
  }
}

/** VmHWM of a running process, in bytes. */
export function peakSinceExec(pid: number): number | undefined {
  try {
    const kb = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmHWM:\s+(\d+) kB$/m)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Calls per second over `calls` sequential calls of one tool by the server `cmd` starts, after 100 to warm up; throws on a failed call. */
export async function callRate(
  cmd: string[],
  env: Record<string, string>,
  tool: string,
  args: object,
  calls: number,
): Promise<number> {
  const d = new Driver(cmd, env);
  await d.initialize();
  const once = async () => {
    const r = await d.request("tools/call", { name: tool, arguments: args });
    const result = r.result as { isError?: boolean } | undefined;
    if (!result || result.isError) throw new Error(`${tool} failed: ${JSON.stringify(r).slice(0, 300)}`);
  };
  for (let i = 0; i < 100; i++) await once();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await once();
  const s = (performance.now() - t0) / 1000;
  await d.close();
  return calls / s;
}
