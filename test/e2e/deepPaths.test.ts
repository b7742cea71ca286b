/**
 * End to end: a path short enough to send whose real path is longer than the
 * kernel will name (PATH_MAX). The gate asks the kernel where each directory
 * it enters really is; past PATH_MAX that question has no answer, and the
 * refusal is a path code, not an unexpected failure.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, constants, mkdirSync, openSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";

/** `levels` directories named `a`, one in the other, under `dir`, with a file at the bottom: made below PATH_MAX's reach. */
function nest(dir: string, levels: number): void {
  let fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  for (let i = 0; i < levels; i++) {
    mkdirSync(`/proc/self/fd/${fd}/a`);
    const next = openSync(`/proc/self/fd/${fd}/a`, constants.O_RDONLY | constants.O_DIRECTORY);
    closeSync(fd);
    fd = next;
  }
  writeFileSync(`/proc/self/fd/${fd}/f`, "bottom\n");
  closeSync(fd);
}

describe("a path whose real path is longer than the kernel names", () => {
  test("is core.path.invalid for a read and a listing, never core.internal", async () => {
    const root = realpathSync(tempDir());
    mkdirSync(join(root, "deep"));
    const levels = 2040; // "deep/", 2040 "a/" and "f": under 4096 bytes as sent, over it from / (as the kernel names it)
    nest(join(root, "deep"), levels);
    const path = `deep/${"a/".repeat(levels)}f`;
    expect(Buffer.byteLength(path)).toBeLessThan(4096);
    const s = await connect("modern", ["--root", root]);
    try {
      const read = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path } }));
      expect(read.code).toBe("core.path.invalid");
      const listed = resultJson(
        await s.client.callTool({ name: "fs_list", arguments: { path: `deep/${"a/".repeat(levels)}` } }),
      );
      expect(listed.code).toBe("core.path.invalid");
    } finally {
      await s.close();
    }
  });
});

describe("a removal of a tree that reaches past what the kernel names", () => {
  test("is core.path.invalid, and nothing in it is removed", async () => {
    const root = realpathSync(tempDir());
    writeFileSync(join(root, "a.txt"), "first in name order");
    // 20 levels of 250-byte names: the bottom ones lie past PATH_MAX from /, though no level is deep
    let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    for (let i = 0; i < 20; i++) {
      const name = i === 0 ? "tree" : "n".repeat(250);
      mkdirSync(`/proc/self/fd/${fd}/${name}`);
      const next = openSync(`/proc/self/fd/${fd}/${name}`, constants.O_RDONLY | constants.O_DIRECTORY);
      closeSync(fd);
      fd = next;
    }
    closeSync(fd);
    writeFileSync(join(root, "tree", "first.txt"), "kept");
    const dataDir = tempDir();
    const granted = Bun.spawnSync([RTA, "grant", "allow", "fs.rm", "--agent", "claude", "--ttl", "10m"], {
      env: { PATH: process.env.PATH ?? "", HOME: dataDir, RTA_DATA_DIR: dataDir, RTA_CONFIG_DIR: join(dataDir, "c") },
    });
    expect(granted.exitCode).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", root], {
      dataDir,
      env: { RTA_CONFIG_DIR: join(dataDir, "c") },
    });
    try {
      const removed = resultJson(
        await s.client.callTool({ name: "fs_rm", arguments: { path: "tree", recursive: true } }),
      );
      expect(removed.code).toBe("core.path.invalid");
      expect(readdirSync(join(root, "tree")).sort()).toEqual(["first.txt", "n".repeat(250)]);
    } finally {
      await s.close();
    }
  });
});
