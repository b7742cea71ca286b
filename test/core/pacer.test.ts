import { expect, test } from "bun:test";
import { RtaError } from "../../src/core/errors.ts";
import { Pacer } from "../../src/core/pacer.ts";

test("pause gives the event loop a turn: work queued before it runs first", async () => {
  const pacer = new Pacer(new AbortController().signal, "searching");
  const order: string[] = [];
  setImmediate(() => order.push("other call"));
  await pacer.pause();
  order.push("search goes on");
  expect(order).toEqual(["other call", "search goes on"]);
});

test("once the call is cancelled, due says so and pause stops the work with core.call.cancelled", async () => {
  const stop = new AbortController();
  const pacer = new Pacer(stop.signal, 'searching "src"');
  stop.abort();
  expect(pacer.due()).toBe(true);
  const err = await pacer.pause().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RtaError);
  expect(err).toMatchObject({ code: "core.call.cancelled", message: 'searching "src" was cancelled' });
});

test("a cancel that arrives during the turn is seen when the turn ends", async () => {
  const stop = new AbortController();
  const pacer = new Pacer(stop.signal, "reading");
  setImmediate(() => stop.abort());
  expect(await pacer.pause().catch((e: RtaError) => e.code)).toBe("core.call.cancelled");
});
