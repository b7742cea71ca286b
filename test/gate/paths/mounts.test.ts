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

const lostScript = `
const { closeSync, readdirSync, readlinkSync } = require("node:fs");
const { mountChanges, watchMounts } = await import(${JSON.stringify(join(src, "mounts.ts"))});
watchMounts();
const before = mountChanges();
// the table's descriptor closed under it (a stray close of its number): no poll of it can say a mount changed
for (const fd of readdirSync("/proc/self/fd")) {
  let to = "";
  try { to = readlinkSync("/proc/self/fd/" + fd); } catch {}
  if (to.endsWith("/mountinfo")) closeSync(Number(fd));
}
console.log(JSON.stringify({ before, after: mountChanges() }));
`;

test.skipIf(process.platform !== "linux")(
  "a mount table's descriptor that was closed says the table cannot be watched, not that nothing changed",
  () => {
    const r = Bun.spawnSync([process.execPath, "-e", lostScript]);
    expect(r.stderr.toString()).toBe("");
    const out = JSON.parse(r.stdout.toString());
    expect(out.before).toBe(0);
    // undefined: the places' check looks at each place itself (placesMemo.ts), as where no table can be watched
    expect(out.after).toBeUndefined();
  },
);
