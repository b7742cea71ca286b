// Spawned by paths.test.ts: swaps `sw` between a directory and a symlink to /etc, as fast as it can, until killed.
import { renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] as string;
const sw = join(root, "sw");
const dirStash = join(root, ".sw-dir");
const linkStash = join(root, ".sw-link");
symlinkSync("/etc", linkStash);
for (;;) {
  try {
    renameSync(sw, dirStash); // the directory out
    renameSync(linkStash, sw); // the link to /etc in
    renameSync(sw, linkStash); // the link out
    renameSync(dirStash, sw); // the directory back
  } catch {
    // a reader had it open mid-rename: go round again
  }
}
