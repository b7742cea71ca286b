/**
 * An upstream over stdio, as the SDK's client transport speaks it (one JSON
 * message a line), with what rta holds it to: the child is started in a
 * process group of its own (stopping it stops whatever it started), with an
 * environment of PATH, LANG, HOME and the operator's `env` and nothing of
 * rta's own (which may hold tokens), and a line is measured as it is read: a
 * message past `maxMessage` bytes ends the connection before it is held
 * whole, so a 100 MB answer costs the server at most that much memory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { deserializeMessage } from "@modelcontextprotocol/client";
import { TooLarge } from "./httpTransport.ts";

export interface StdioUpstream {
  command: string[];
  env: Record<string, string>;
  home: string;
  /** the most bytes one message may take */
  maxMessage: number;
}

/** How long a child told to stop has before it is killed. */
const STOP_GRACE_MS = 2000;
const NEWLINE = 0x0a;

export class UpstreamStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private chunks: Buffer[] = [];
  private held = 0;
  private closed = false;

  constructor(private readonly options: StdioUpstream) {}

  /** Starts the child; refuses (rejects) when it cannot be started. */
  start(): Promise<void> {
    const [program, ...args] = this.options.command as [string, ...string[]];
    const child = spawn(program, args, {
      cwd: "/",
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        LANG: "C.UTF-8",
        HOME: this.options.home,
        ...this.options.env,
      },
    });
    this.child = child;
    return new Promise((resolve, reject) => {
      child.once("spawn", () => {
        child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
        child.once("exit", () => this.ended());
        child.stdin?.on("error", () => this.ended());
        resolve();
      });
      child.once("error", (err) => {
        reject(err);
        this.ended();
      });
    });
  }

  private read(chunk: Buffer): void {
    let from = 0;
    while (!this.closed) {
      const nl = chunk.indexOf(NEWLINE, from);
      const part = nl === -1 ? chunk.subarray(from) : chunk.subarray(from, nl);
      this.held += part.length;
      if (this.held > this.options.maxMessage) {
        this.onerror?.(new TooLarge(this.held));
        void this.close();
        return;
      }
      if (part.length > 0) this.chunks.push(part);
      if (nl === -1) return;
      const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
      this.chunks = [];
      this.held = 0;
      from = nl + 1;
      if (line.trim() === "") continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (err) {
        this.onerror?.(err as Error);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  /** Sends one message; refuses (rejects) when the child's stdin is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.closed || !stdin || stdin.destroyed) return Promise.reject(new Error("the upstream has stopped"));
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Stops the child's process group: TERM, then KILL after a grace; refuses nothing. */
  async close(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const pid = child.pid;
      signalGroup(pid, "SIGTERM");
      const timer = setTimeout(() => signalGroup(pid, "SIGKILL"), STOP_GRACE_MS);
      timer.unref();
      child.once("exit", () => {
        clearTimeout(timer);
        // whatever it left running in its group goes with it
        signalGroup(pid, "SIGKILL");
      });
    }
    child?.stdin?.destroy();
    child?.stdout?.destroy();
    this.ended();
  }

  /** Stops the child's group at once, for a process that is exiting; refuses nothing. */
  kill(): void {
    if (this.child?.pid !== undefined) signalGroup(this.child.pid, "SIGKILL");
    this.ended();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.chunks = [];
    this.onclose?.();
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}
