/**
 * End to end: a root inside another root. Each root is opened by its path at
 * every call, so whoever can replace the entry at that path decides where the
 * root is. Through the outer root, an agent moved the inner root away and a
 * link to a directory outside every root into its place: the inner root was
 * then that directory, read and written.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

describe("a root inside another root", () => {
  test("is not moved, removed or replaced through the outer one, nor is the way to it", async () => {
    const outer = realpathSync(tempDir());
    const outside = realpathSync(tempDir());
    writeFileSync(join(outside, "secret.txt"), "outside every root\n");
    const inner = join(outer, "work/inner");
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(inner, "a.txt"), "a");
    symlinkSync(outside, join(outer, "docs")); // a link the operator made, to a dir outside
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", inner, "--root", outer], { dataDir: data, env });
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      const spellings = [`${outer}/./work/inner`, `${outer}/work/../work/inner`, `${outer}//work/inner`];
      const cases: [string, Record<string, unknown>][] = [];
      for (const c of spellings) {
        cases.push(["fs_move", { from: c, to: `${outer}/moved` }]);
        cases.push(["fs_rm", { path: c, recursive: true }]);
      }
      cases.push(["fs_move", { from: `${outer}/work`, to: `${outer}/moved` }]);
      cases.push(["fs_rm", { path: `${outer}/work`, recursive: true }]);
      cases.push(["fs_move", { from: `${outer}/docs`, to: `${outer}/./work/inner`, overwrite: true }]);
      for (const [name, args] of cases) {
        const code = (await call(name, args)).code;
        expect([name, args, code]).toEqual([name, args, "core.path.outside"]);
      }
      expect(readdirSync(inner)).toEqual(["a.txt"]);
      // the inner root's files are worked on as before
      expect(await call("fs_read", { path: "a.txt" })).toEqual({ type: "text", text: "a" });
      expect(await call("fs_write", { path: "b.txt", content: "b" })).toMatchObject({ value: { created: true } });
      expect((await call("fs_read", { path: "secret.txt" })).code).toBe("fs.notfound");
      expect(existsSync(join(outside, "b.txt"))).toBe(false);
    } finally {
      await s.close();
    }
  }, 30_000);
});

describe("a root that another server's agent can reach", () => {
  // The outer server knows nothing of the inner one's root, so it cannot refuse the swap; the inner one must notice.
  test("once replaced by a link to a dir outside, is refused rather than followed", async () => {
    const outer = realpathSync(tempDir());
    const outside = realpathSync(tempDir());
    writeFileSync(join(outside, "secret.txt"), "outside every root\n");
    const inner = join(outer, "inner");
    mkdirSync(inner);
    writeFileSync(join(inner, "a.txt"), "a");
    symlinkSync(outside, join(outer, "docs"));
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const [a, b] = await Promise.all([
      connect("modern", ["--agent", "claude", "--root", outer], { dataDir: data, env }),
      connect("legacy", ["--agent", "claude", "--root", inner], { dataDir: data, env }),
    ]);
    const on = (s: typeof a) => async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      expect(await on(b)("fs_read", { path: "a.txt" })).toEqual({ type: "text", text: "a" });
      expect(await on(a)("fs_move", { from: "inner", to: "inner-old" })).toMatchObject({ value: { moved: true } });
      expect(await on(a)("fs_move", { from: "docs", to: "inner" })).toMatchObject({ value: { moved: true } });
      for (const [name, args] of [
        ["fs_read", { path: "secret.txt" }],
        ["fs_list", { path: "." }],
        ["fs_write", { path: "planted.txt", content: "x" }],
      ] as [string, Record<string, unknown>][]) {
        expect([name, (await on(b)(name, args)).code]).toEqual([name, "core.path.unreadable"]);
      }
      expect(readdirSync(outside)).toEqual(["secret.txt"]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 30_000);
});
