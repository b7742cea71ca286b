/**
 * Where the stdio transport reads its client's bytes from. A server reads fd 0
 * through Bun's own stream (stdinSource): a read is asked for only while the
 * transport wants more, so a paused session reads nothing past the chunk in
 * hand and the client's next bytes wait in its pipe, as with Node's stream,
 * without the Node stream's machinery on every chunk (it kept the JIT thread
 * compiling at steady state). A test hands a Node stream (nodeSource).
 */
import { EventEmitter } from "node:events";

/** What a source tells the transport: a chunk read, the end of its input, or a failure reading it. */
export interface SourceHandlers {
  data(chunk: Uint8Array): void;
  end(): void;
  error(err: Error): void;
}

/** A client's bytes, read while not paused. */
export interface ByteSource {
  /** starts reading, handing each chunk on as it is read */
  start(on: SourceHandlers): void;
  /** reads nothing more until resume(); a chunk being handed on is handed on whole */
  pause(): void;
  resume(): void;
  /** reads nothing more, for good; the process may end with the input still open */
  stop(): void;
}

/** True for a ByteSource, false for a Node stream. */
export function isByteSource(input: ByteSource | NodeJS.ReadableStream): input is ByteSource {
  return typeof (input as ByteSource).stop === "function" && typeof (input as ByteSource).start === "function";
}

/** A Node stream as a source: flowing while not paused; its end and errors handed on. */
export function nodeSource(input: NodeJS.ReadableStream): ByteSource {
  let on: SourceHandlers | undefined;
  const data = (chunk: Buffer | string) => on?.data(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  const end = () => on?.end();
  const error = (err: Error) => on?.error(err);
  return {
    start(handlers) {
      on = handlers;
      input.on("data", data);
      input.on("end", end);
      input.on("error", error);
    },
    pause: () => input.pause(),
    resume: () => input.resume(),
    stop() {
      on = undefined;
      input.off("data", data);
      input.off("end", end);
      input.off("error", error);
      input.pause();
    },
  };
}

/**
 * The process's stdin (a pipe, a file or a terminal) read through Bun's
 * stream: one read asked for at a time, and the next only once the chunk
 * before it was handed on and the source is not paused.
 */
export function stdinSource(): ByteSource {
  return new StdinReader();
}

class StdinReader implements ByteSource {
  private paused = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** cancelled by stop(): a read under way ends */
  private cancel: (() => void) | undefined;

  start(on: SourceHandlers): void {
    void this.loop(on);
  }

  private async loop(on: SourceHandlers): Promise<void> {
    const reader = Bun.stdin.stream().getReader();
    this.cancel = () => void reader.cancel().catch(() => {});
    for (;;) {
      while (this.paused && !this.stopped) await new Promise<void>((resolve) => (this.wake = resolve));
      if (this.stopped) return;
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (err) {
        if (!this.stopped) on.error(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (this.stopped) return;
      // The end is told a turn later, as a Node stream's is: what the last chunk started gets a turn first.
      if (read.done) return void setImmediate(() => this.stopped || on.end());
      if (read.value.length > 0) on.data(read.value);
    }
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wakeLoop();
  }

  stop(): void {
    this.stopped = true;
    this.wakeLoop();
    this.cancel?.();
  }

  private wakeLoop(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * The process's stdout as the stdio transport writes it: each answer handed
 * to Bun's own sink and flushed at once, without the Node stream's machinery.
 * write() says false while the client has not read what was written, and
 * "drain" comes once it has; a client that closed its end is an "error".
 */
export function stdoutSink(): NodeJS.WritableStream {
  return new StdoutSink() as unknown as NodeJS.WritableStream;
}

class StdoutSink extends EventEmitter {
  private readonly sink = Bun.stdout.writer();
  /** the newest flush the client has not read yet */
  private pending: Promise<unknown> | undefined;
  private failed = false;

  write(text: string, done?: () => void): boolean {
    if (this.failed) return false;
    if (text.length > 0) this.sink.write(text);
    let flushed: number | Promise<number>;
    try {
      flushed = this.sink.flush();
    } catch (err) {
      this.fail(err);
      return false;
    }
    if (typeof flushed === "number" && this.pending === undefined) {
      if (done) queueMicrotask(done);
      return true;
    }
    const waited = Promise.resolve(flushed).then(
      () => {
        done?.();
        if (this.pending !== waited) return;
        this.pending = undefined;
        this.emit("drain");
      },
      (err) => this.fail(err),
    );
    this.pending = waited;
    return false;
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.pending = undefined;
    // told to whoever listens: a sink no one listens to any more (the session ended) fails quietly
    queueMicrotask(() => {
      if (this.listenerCount("error") > 0) this.emit("error", err instanceof Error ? err : new Error(String(err)));
    });
  }
}
