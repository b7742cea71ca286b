/**
 * Where the stdio transport reads its client's bytes from. A server reads fd 0
 * through Bun's own stream (stdinSource): a read is asked for only while the
 * transport wants more, so a paused session reads nothing past the chunk in
 * hand and the client's next bytes wait in its pipe, as with Node's stream,
 * without the Node stream's machinery on every chunk (a tenth more calls per
 * second over stdio). A test hands a Node stream (nodeSource).
 */

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
 * before it was handed on and the source is not paused. `open` gives the
 * stream read: fd 0's, or a test's.
 */
export function stdinSource(open: () => ReadableStream<Uint8Array> = () => Bun.stdin.stream()): ByteSource {
  return new StdinReader(open);
}

/** The most handed on at once: what a Node stream reads at a time (its highWaterMark for fd 0). */
const HANDED_BYTES = 64 * 1024;

class StdinReader implements ByteSource {
  private paused = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** cancelled by stop(): a read under way ends */
  private cancel: (() => void) | undefined;

  constructor(private readonly open: () => ReadableStream<Uint8Array>) {}

  start(on: SourceHandlers): void {
    void this.loop(on);
  }

  private async loop(on: SourceHandlers): Promise<void> {
    const reader = this.reader(on);
    if (!reader) return;
    this.cancel = () => void reader.cancel().catch(() => {});
    for (;;) {
      // waited for only while paused: an await of nothing costs a turn of the microtask queue per read
      if (this.paused && !(await this.unpaused())) return;
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
      // Handed on a Node stream's read at a time, each once not paused: a read of a file or of a pipe the client
      // made larger is up to 256 KiB, and every request handed on is answered even to a client that reads nothing.
      for (let at = 0; at < read.value.length; at += HANDED_BYTES) {
        if (at > 0 && this.paused && !(await this.unpaused())) return;
        if (this.stopped) return;
        on.data(read.value.subarray(at, at + HANDED_BYTES));
      }
    }
  }

  /** The stream's reader; undefined, its failure told, for a stdin that cannot be read at all (a directory). */
  private reader(on: SourceHandlers) {
    try {
      return this.open().getReader();
    } catch (err) {
      on.error(err instanceof Error ? err : new Error(String(err)));
      return undefined;
    }
  }

  /** Resolves once not paused: true, or false once stopped. */
  private async unpaused(): Promise<boolean> {
    while (this.paused && !this.stopped) await new Promise<void>((resolve) => (this.wake = resolve));
    return !this.stopped;
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
