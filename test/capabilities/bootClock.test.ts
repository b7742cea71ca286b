/**
 * sys.info's uptime on the machine's own proc comes from the boot clock, not a read of /proc/uptime
 * (src/capabilities/sys/bootClock.ts): the same clock, to the same hundredth.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { bootSeconds } from "../../src/capabilities/sys/bootClock.ts";

const fileSeconds = () => Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);

test.skipIf(process.platform !== "linux")("the boot clock reads as /proc/uptime does, between two reads of it", () => {
  for (let i = 0; i < 50; i++) {
    const before = fileSeconds();
    const now = bootSeconds();
    const after = fileSeconds();
    expect(now).toBeDefined();
    expect(now as number).toBeGreaterThanOrEqual(before);
    expect(now as number).toBeLessThanOrEqual(after);
    // spelled to the hundredth, as the file spells it
    expect(Math.round((now as number) * 100) / 100).toBe(now as number);
  }
});
