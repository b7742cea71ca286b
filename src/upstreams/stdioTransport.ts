/**
 * An upstream over stdio, as the SDK's client transport speaks it (one JSON
 * message a line), with what rta holds it to: the child is started in a
 * process group of its own (stopping it stops whatever it started), with an
 * environment of PATH, LANG, HOME and the operator's `env` and nothing of
 * rta's own (which may hold tokens), and a line is measured as it is read: a
 * message past `maxMessage` bytes ends the connection before it is held
 * whole, so a 100 MB answer costs the server at most that much memory.
 *
 * A request rta sends itself (`exchange`: a tool's call, see connection.ts)
 * has its answer taken here, by its id, and never handed to the SDK's client;
 * every other message is. A result answer in the plainest form (three
 * members, no `_meta`) is taken as parsed, as the SDK's schema would pass it
 * unchanged; any other message is checked by that schema.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { parseJSONRPCMessage } from "@modelcontextprotocol/client";
import { lap } from "../core/profile.ts";
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

/** A JSON-RPC answer to a request `exchange` sent: its result, or its error. */
export interface Answered {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export class UpstreamStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private chunks: Buffer[] = [];
  private held = 0;
  private closed = false;
  /** the requests `exchange` sent, by id, waiting for their answers */
  private readonly waiting = new Map<number, { resolve: (answer: Answered) => void; reject: (err: Error) => void }>();

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
    lap("upstream: wait for the answer");
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
        message = parsed(line);
      } catch (err) {
        this.onerror?.(err as Error);
        continue;
      }
      lap("upstream: answer frame parse");
      const id = (message as { id?: unknown }).id;
      const waiter = typeof id === "number" && !("method" in message) ? this.waiting.get(id) : undefined;
      if (waiter !== undefined) {
        this.waiting.delete(id as number);
        waiter.resolve(message as Answered);
      } else this.onmessage?.(message);
    }
  }

  /** Sends one message; refuses (rejects) when the child's stdin is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.closed || !stdin || stdin.destroyed) return Promise.reject(new Error("the upstream has stopped"));
    lap("upstream: request");
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
      lap("upstream: request frame written");
    });
  }

  /**
   * Sends `message` (a request whose `id` no other request has) and waits
   * for its answer, which the SDK's client is then never handed; refuses
   * (rejects) when the child's stdin is gone, and when the connection ends
   * before the answer. `forget(id)` stops the wait (a call cancelled or out
   * of time): a late answer is then handed on like any other message.
   */
  exchange(message: JSONRPCMessage & { id: number }): Promise<Answered> {
    return new Promise<Answered>((resolve, reject) => {
      this.waiting.set(message.id, { resolve, reject });
      this.send(message).catch((err) => {
        this.waiting.delete(message.id);
        reject(err);
      });
    });
  }

  /** Stops waiting for the answer to `id`; refuses nothing. */
  forget(id: number): void {
    this.waiting.delete(id);
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
    // a request waiting for its answer fails, as the SDK's own do when the connection closes
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiting) waiter.reject(new Error("Connection closed"));
    this.onclose?.();
  }
}

/** True for a plain object (not an array, not null). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * One line as a JSON-RPC message: a result answer with exactly `jsonrpc`,
 * `id` and `result` (an object with no `_meta`), which the SDK's schema
 * passes as it is, is taken as parsed; any other is checked by that schema.
 * Refuses what is not JSON, or not a message.
 */
function parsed(line: string): JSONRPCMessage {
  const value = JSON.parse(line) as unknown;
  if (isRecord(value) && value.jsonrpc === "2.0" && isRecord(value.result) && !("_meta" in value.result)) {
    const id = value.id;
    if ((Number.isInteger(id) || typeof id === "string") && Object.keys(value).length === 3)
      return value as unknown as JSONRPCMessage;
  }
  return parseJSONRPCMessage(value);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}
