/**
 * The mount table watched with no path looked up (src/gate/paths/mounts.ts), and the places worked out again after
 * a mount over one of them though no directory looked in changed (placesMemo.ts). Run in a mount namespace of its
 * own (unshare), so nothing is mounted where the rest of the machine sees it.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const canUnshare = Bun.spawnSync(["unshare", "-m", "--propagation", "private", "true"]).exitCode === 0;
const src = join(import.meta.dir, "..", "..", "..", "src", "gate", "paths");

const script = `
const { mkdirSync, mkdtempSync, realpathSync } = require("node:fs");
const { join } = require("node:path");
const { mountChanges, watchMounts } = await import(${JSON.stringify(join(src, "mounts.ts"))});
const { PlacesMemo } = await import(${JSON.stringify(join(src, "placesMemo.ts"))});
watchMounts();
const base = realpathSync(mkdtempSync("/tmp/rta-mounts-"));
const place = join(base, "config");
mkdirSync(place);
const memo = new PlacesMemo([place], false, () => Date.now() + 10_000);
const out = { counts: [mountChanges(), mountChanges()], workedOut: [] };
memo.now(); memo.now();
out.workedOut.push(memo.workedOut);
const ids = [...memo.now().ids];
Bun.spawnSync(["mount", "-t", "tmpfs", "none", place]);
out.counts.push(mountChanges(), mountChanges());
memo.now();
out.workedOut.push(memo.workedOut);
out.moved = ids[0] !== [...memo.now().ids][0];
memo.now();
out.workedOut.push(memo.workedOut);
Bun.spawnSync(["umount", place]);
console.log(JSON.stringify(out));
`;

test.skipIf(!canUnshare)(
  "a mount over a place is seen by one ask of the mount table, and the places worked out again",
  () => {
    const r = Bun.spawnSync(["unshare", "-m", "--propagation", "private", process.execPath, "-e", script]);
    expect(r.stderr.toString()).toBe("");
    const out = JSON.parse(r.stdout.toString());
    // no change, then one change seen once by every asker's count
    expect(out.counts).toEqual([0, 0, 1, 1]);
    // kept, then worked out again after the mount (the place is another inode), then kept
    expect(out.workedOut).toEqual([1, 2, 2]);
    expect(out.moved).toBe(true);
  },
);
