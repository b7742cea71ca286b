/**
 * A bare JSON-RPC driver for a stdio MCP server: no client library in the
 * measurement, so the figures are the server's.
 */
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

  async close(): Promise<{ maxRSS: number }> {
    await this.proc.stdin.end();
    await this.proc.exited;
    return { maxRSS: this.proc.resourceUsage()?.maxRSS ?? 0 };
  }
}
