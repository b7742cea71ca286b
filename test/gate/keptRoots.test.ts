/**
 * Roots' descriptors kept between calls (src/gate/paths/roots.ts): a bounded
 * number, the one used longest ago closed first, so a server whose client
 * keeps offering new roots does not hold every root it was ever given. What
 * a kept root is served after a change is test/e2e/keptRoot.test.ts.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { closeGated } from "../../src/gate/paths/stage.ts";
import { tempDir } from "../support/fixtures.ts";

const openFds = () => readdirSync("/proc/self/fd").length;

test("no more than 16 roots are kept open, however many were served", async () => {
  const base = realpathSync(tempDir());
  const roots = Array.from({ length: 40 }, (_, i) => join(base, `root${i}`));
  for (const r of roots) {
    mkdirSync(r);
    writeFileSync(join(r, "f.txt"), "x");
  }
  // a root is kept only once its last change lies well before it is opened
  await Bun.sleep(300);
  const gate = new PathGate(roots, agentRules({ data: join(base, "data"), config: join(base, "config") }));
  const before = openFds();
  for (const r of roots) closeGated(gate.open(join(r, "f.txt"), "read"));
  expect(openFds() - before).toBeLessThanOrEqual(16);
  // each is still served, kept or opened again
  for (const r of roots) {
    const p = gate.open(join(r, "f.txt"), "read");
    expect(p.intent).toBe("read");
    closeGated(p);
  }
  expect(openFds() - before).toBeLessThanOrEqual(16);
});
