/**
 * End to end: two servers on one root, one agent. Each dir holds a HEAD and a
 * config the agent planted (a plain dir, so both were allowed); each server
 * then adds one more of the entries that make a git dir, at the same moment.
 * Each gate asked before its write and saw no git dir in the making; without
 * asking again after it, a few hundred tries made git dirs whose config the
 * agent wrote.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** How many dirs are raced for: before the fix about one in twenty became a git dir. */
const TRIES = 300;

describe("two servers adding a git dir's last two entries at once", () => {
  test("never leave a git dir: one of the two is refused and undone", async () => {
    const root = realpathSync(tempDir());
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    for (let i = 0; i < TRIES; i++) {
      mkdirSync(join(root, `d${i}`));
      writeFileSync(join(root, `d${i}/HEAD`), "ref: refs/heads/main\n");
      writeFileSync(join(root, `d${i}/config`), "[core]\n\tpager = ./planted.sh\n");
      mkdirSync(join(root, `staged${i}/refs`), { recursive: true });
    }
    const [a, b] = await Promise.all([
      connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env }),
      connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env }),
    ]);
    const codes = new Map<string, number>();
    const count = (r: unknown) => {
      const code = (resultJson(r).code as string | undefined) ?? "ok";
      codes.set(code, (codes.get(code) ?? 0) + 1);
    };
    try {
      for (let i = 0; i < TRIES; i++) {
        // objects by mkdir (with parents, or a file by write) on one side; refs by mkdir or by a move on the other
        const objects =
          i % 3 === 0
            ? { name: "fs_mkdir", arguments: { path: `d${i}/objects` } }
            : i % 3 === 1
              ? { name: "fs_mkdir", arguments: { path: `d${i}/objects/pack`, parents: true } }
              : { name: "fs_write", arguments: { path: `d${i}/objects`, content: "x" } };
        const refs =
          i % 2 === 0
            ? { name: "fs_mkdir", arguments: { path: `d${i}/refs` } }
            : { name: "fs_move", arguments: { from: `staged${i}/refs`, to: `d${i}/refs` } };
        const [ra, rb] = await Promise.all([a.client.callTool(objects), b.client.callTool(refs)]);
        count(ra);
        count(rb);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const made = [];
    for (let i = 0; i < TRIES; i++) {
      if (existsSync(join(root, `d${i}/objects`)) && existsSync(join(root, `d${i}/refs`))) made.push(`d${i}`);
    }
    expect(made).toEqual([]);
    // every try ended with at least one side refused (both, when each saw the other's entry after its own)
    expect([...codes.keys()].sort()).toEqual(["core.path.withheld", "ok"]);
    expect(codes.get("core.path.withheld")).toBeGreaterThanOrEqual(TRIES);
  }, 120_000);
});
