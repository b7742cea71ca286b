/**
 * One plugin process: started with no arguments, cwd `/`, a small fixed
 * environment (never the server's, which may hold tokens) and in a process
 * group of its own, so a kill takes what it started too. It is asked one
 * request at a time; the last 8 KiB of its stderr are kept for the record.
 */
import { closeSync, constants, fstatSync, openSync } from "node:fs";
import type { Subprocess } from "bun";
import { KEY_OPEN, keyArmourIn, maskPrivateKeys } from "../core/privateKeys.ts";
import { MASK } from "../core/secrets.ts";
import { fdDigest, identityOf } from "./digest.ts";
import { encodeFrame, FrameError, FrameReader, holdsPast, MESSAGE_VALUE_LIMIT } from "./frame.ts";

/** How much of a plugin's stderr is kept: its tail, for the record. */
export const STDERR_TAIL_BYTES = 8 * 1024;

/** The environment every plugin process gets, and nothing else of the server's. */
export function pluginEnv(): Record<string, string> {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    HOME: process.env.HOME ?? "/",
    RTA_PLUGIN_PROTOCOL: "1",
  };
}

/** How long, once a plugin exited, its stdout and stderr are read on: what it wrote before it exited is there. */
const EXITED_GRACE_MS = 2000;

/** SIGKILLs the process group `pid` leads; whether there was one to signal. Refuses nothing. */
function killGroup(pid: number): boolean {
  try {
    process.kill(-pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}

/** One JSON-RPC response, as the plugin sent it. */
export type Reply =
  | { result: unknown }
  | { error: { code: unknown; message: unknown; data?: { code?: unknown; hint?: unknown } } };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A running plugin process. */
export class Child {
  private readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  private readonly reader: FrameReader;
  private tail: Buffer = Buffer.alloc(0);
  /** whether more was written to stderr than the tail keeps */
  private tailCut = false;
  private readonly stderrRead: Promise<void>;
  private nextId = 1;
  private ended = false;
  private stderrReader: { cancel(): Promise<void> } | undefined;

  /**
   * Starts `file` with `fds` as its fds 3, 4, ...; refuses (throws the
   * system's error) a file that cannot be run, and BinaryChanged when it
   * does not hash to `digest` (unless that is "").
   *
   * The binary is opened once, hashed through that descriptor, and run from
   * it (`/proc/<rta>/fd/<n>`), never again by its name: a file renamed or
   * linked to the name after the check is not what starts. A write into the
   * opened file before it started changes its identity, seen once it has.
   */
  constructor(
    readonly file: string,
    readonly digest: string,
    fds: readonly number[] = [],
  ) {
    const exe = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let proc: Subprocess<"pipe", "pipe", "pipe"> | undefined;
    try {
      const seen = fdDigest(file, exe);
      if (digest !== "" && seen.sha256 !== digest) throw new BinaryChanged();
      proc = Bun.spawn([`/proc/${process.pid}/fd/${exe}`], {
        argv0: file,
        cwd: "/",
        env: pluginEnv(),
        stdio: ["pipe", "pipe", "pipe", ...fds],
        detached: true,
      }) as Subprocess<"pipe", "pipe", "pipe">;
      if (identityOf(fstatSync(exe, { bigint: true })) !== seen.identity) throw new BinaryChanged();
    } catch (err) {
      if (proc && !killGroup(proc.pid)) proc.kill("SIGKILL");
      closeSync(exe);
      throw err;
    }
    this.proc = proc;
    this.reader = new FrameReader(this.proc.stdout);
    this.stderrRead = this.keepTail(this.proc.stderr);
    // kept open while it runs: an interpreter opens its script by that name once started
    this.proc.exited.then(() => {
      this.ended = true;
      closeSync(exe);
      // What it started and left behind goes with it: a process holding its stdout would keep a call waiting for an
      // answer that never comes, and outlive the server. One that left its group is cut off once the grace is over.
      killGroup(this.proc.pid);
      setTimeout(() => this.cutOff(), EXITED_GRACE_MS).unref();
    });
  }

  /** Whether it has exited or was killed: the long-lived child is started again. */
  get dead(): boolean {
    return this.ended || this.proc.exitCode !== null || this.proc.signalCode !== null;
  }

  /**
   * Sends one request and reads its response, at most `bound` bytes. Once
   * `signal` aborts, it is sent `cancel` and killed `graceMs` later unless it
   * answered. Refuses (FrameError) a frame that is malformed, declared past
   * `bound`, or never came (the process ended), and a body that is not one
   * JSON-RPC response to this request.
   */
  async request(method: string, params: unknown, bound: number, signal?: AbortSignal, graceMs = 2000): Promise<Reply> {
    const id = this.nextId++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      this.send({ jsonrpc: "2.0", method: "cancel", params: { id } });
      timer = setTimeout(() => this.kill(), graceMs);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      this.send({ jsonrpc: "2.0", id, method, params });
      const body = await this.reader.next(bound);
      return asReply(body, id);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    }
  }

  /** The last 8 KiB of its stderr and how it ended, once it has (waiting a moment for both); for the record. */
  async ending(): Promise<string> {
    const moment = new Promise((r) => setTimeout(r, 200));
    await Promise.race([Promise.all([this.proc.exited, this.stderrRead]), moment]);
    const how =
      this.proc.signalCode !== null
        ? `killed by ${this.proc.signalCode}`
        : this.proc.exitCode !== null
          ? `exit status ${this.proc.exitCode}`
          : "still running";
    if (!this.tailCut) {
      const text = this.tail.toString("utf8");
      return text === "" ? `(${how}; nothing on stderr)` : `(${how}) stderr: ${text}`;
    }
    // a tail cut short starts inside a line, maybe inside a credential that is masked only whole: from its next line
    const lineStart = this.tail.indexOf(0x0a) + 1;
    if (lineStart === 0) return `(${how}) stderr: (its last ${STDERR_TAIL_BYTES} bytes hold no whole line)`;
    return `(${how}) stderr, its last lines: ${keyBodyMasked(this.tail.subarray(lineStart).toString("utf8"))}`;
  }

  /** Closes its stdin, so a plugin that reads to the end exits; killed `graceMs` later if it has not. */
  finish(graceMs: number): void {
    try {
      this.proc.stdin.end();
    } catch {
      // already gone
    }
    setTimeout(() => this.kill(), graceMs).unref();
  }

  /** Kills it and everything it started (its process group). Refuses nothing. */
  kill(): void {
    if (!this.dead && !killGroup(this.proc.pid)) this.proc.kill("SIGKILL");
    this.ended = true;
    this.reader.cancel();
  }

  /** Stops reading its stdout and stderr, which a process that left its group may hold open. Refuses nothing. */
  private cutOff(): void {
    this.reader.cancel();
    this.stderrReader?.cancel().catch(() => {});
  }

  /**
   * Writes one message to its stdin. A write that fails (it closed its stdin,
   * or is gone) kills it: a plugin that reads no more requests answers none,
   * and its call would wait on a stdout it keeps open.
   */
  private send(message: unknown): void {
    try {
      this.proc.stdin.write(encodeFrame(message));
      const flushed = this.proc.stdin.flush();
      if (flushed instanceof Promise) flushed.catch(() => this.kill());
    } catch {
      this.kill();
    }
  }

  private async keepTail(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.stderrReader = reader;
    try {
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done || chunk === undefined) return;
        const joined = Buffer.concat([this.tail, chunk]);
        if (joined.length > STDERR_TAIL_BYTES) this.tailCut = true;
        this.tail = this.tailCut ? joined.subarray(joined.length - STDERR_TAIL_BYTES) : joined;
      }
    } catch {
      // the stream was cut when it was killed
    }
  }
}

/** The binary at a plugin's name is not the one it was described as: it is not run. */
export class BinaryChanged extends Error {
  constructor() {
    super("its binary changed since it was described");
  }
}

/** The body as one JSON-RPC response to request `id`; refuses (FrameError malformed) anything else. */
function asReply(body: Buffer, id: number): Reply {
  if (holdsPast(body)) {
    throw new FrameError("toomany", `a message holding more than ${MESSAGE_VALUE_LIMIT} values`, body.length);
  }
  let msg: unknown;
  try {
    msg = JSON.parse(utf8.decode(body));
  } catch {
    throw new FrameError("malformed", "a message that is not UTF-8 JSON");
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) throw notResponse();
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || m.id !== id || "result" in m === "error" in m) throw notResponse();
  if ("error" in m && (m.error === null || typeof m.error !== "object")) throw notResponse();
  return m as Reply;
}

function notResponse(): FrameError {
  return new FrameError("malformed", "a message that is not the JSON-RPC response to the request");
}

/**
 * A tail cut short may start inside a private key whose BEGIN was cut off:
 * its lines up to the END are the key's body, masked as a whole key's is
 * (the record masks a key only between its armours).
 */
function keyBodyMasked(tail: string): string {
  if (keyArmourIn(tail) !== "END") return tail;
  return maskPrivateKeys(`${KEY_OPEN}${tail}`, MASK).slice(KEY_OPEN.length);
}
