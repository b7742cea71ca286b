/** A plugin's 100 MB answer is refused from its header: the server's memory never holds it. */
import { expect, test } from "bun:test";
import { join } from "node:path";

const PROBE = join(import.meta.dir, "..", "fixtures", "plugins", "hostProbe.ts");

function probe(...args: string[]): { code: string; peakKiB: number } {
  const out = Bun.spawnSync([process.execPath, PROBE, ...args], { stderr: "inherit" });
  return JSON.parse(out.stdout.toString());
}

test("a 100 MB answer is refused from its frame with the peak RSS no higher than a small call's", () => {
  const small = probe("demo", "demo.env");
  const huge = probe("huge", "huge.dump");
  expect(huge.code).toBe("core.result.toolarge");
  expect(huge.peakKiB).toBeLessThan(100 * 1024);
  // what the refusal saves: within 16 MiB of a call that answers a few bytes
  expect(huge.peakKiB - small.peakKiB).toBeLessThan(16 * 1024);
});

test("the probe would see a body that was read: under a bound past 100 MB the same answer is held", () => {
  const held = probe("huge", "huge.dump", "256");
  // its body is 100 MB of zeros, not JSON: it is read whole, then refused as malformed
  expect(held.code).toBe("core.plugin.failed");
  expect(held.peakKiB).toBeGreaterThan(100 * 1024);
});
