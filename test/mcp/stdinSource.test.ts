/**
 * The stdin source hands a read on a Node stream's read (64 KiB) at a time,
 * each once not paused: a read of a file, or of a pipe its client made
 * larger, is up to 256 KiB, and a session that pauses after the first part
 * (too many requests wait) is handed nothing more until it resumes.
 */
import { expect, test } from "bun:test";
import { stdinSource } from "../../src/mcp/stdinSource.ts";

const KiB = 1024;

test("a 256 KiB read is handed on 64 KiB at a time, and nothing past a pause until resume", async () => {
  const read = new Uint8Array(256 * KiB).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(read);
    },
  });
  const source = stdinSource(() => stream);
  const handed: number[] = [];
  let got = () => {};
  source.start({
    data(chunk) {
      handed.push(chunk.length);
      source.pause();
      got();
    },
    end() {},
    error() {},
  });
  await new Promise<void>((resolve) => (got = resolve));
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(handed).toEqual([64 * KiB]);
  for (const _ of [1, 2, 3]) {
    const next = new Promise<void>((resolve) => (got = resolve));
    source.resume();
    await next;
  }
  expect(handed).toEqual([64 * KiB, 64 * KiB, 64 * KiB, 64 * KiB]);
  source.stop();
});
