/**
 * End to end: a root's descriptor kept between calls (src/gate/paths/roots.ts)
 * is served only while a look at the root's path finds it unchanged. Each
 * change below comes after a read that was served from the kept descriptor
 * (the root's ctime lay well before the first call), and the very next call
 * must see it. The server runs as nobody, since root ignores file modes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { canBindMount } from "../support/fixtures.ts";
import { resultJson } from "../support/mcpClient.ts";
import { AS_NOBODY, NOBODY, nobodyBase } from "../support/nobody.ts";

interface Served {
  base: string;
  way: string;
  root: string;
  read: (path: string) => Promise<Record<string, unknown>>;
  write: (path: string, content: string) => Promise<Record<string, unknown>>;
}

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

/**
 * base/way/root, owned by nobody, with root/f.txt (and root/config, with `config`); a server run as nobody on that
 * root, after the root settled.
 */
async function served(rootMode = 0o755, config?: string): Promise<Served> {
  const { base, bin } = nobodyBase();
  const way = join(base, "way");
  const root = join(way, "root");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "f.txt"), "inside");
  if (config !== undefined) writeFileSync(join(root, "config"), config);
  const data = join(base, "data");
  mkdirSync(data);
  for (const p of [way, root, join(root, "f.txt"), data]) chownSync(p, NOBODY, NOBODY);
  chmodSync(root, rootMode);
  const env = { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(data, "config") };
  const grant = Bun.spawnSync([...AS_NOBODY, bin, "grant", "allow", "fs", "--agent", "e2e", "--ttl", "10m"], {
    env,
  });
  expect(grant.exitCode).toBe(0);
  // a root is kept only once its last change lies well before it is opened
  await Bun.sleep(300);
  const transport = new StdioClientTransport({
    command: AS_NOBODY[0] as string,
    args: [...AS_NOBODY.slice(1), bin, "mcp", "serve", "--agent", "e2e", "--root", root],
    env,
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(transport);
  open.push(client);
  const read = async (path: string) => resultJson(await client.callTool({ name: "fs_read", arguments: { path } }));
  const write = async (path: string, content: string) =>
    resultJson(await client.callTool({ name: "fs_write", arguments: { path, content } }));
  // served twice: the second from the kept descriptor
  for (let i = 0; i < 2; i++) expect(await read(join(root, "f.txt"))).toEqual({ type: "text", text: "inside" });
  return { base, way, root, read, write };
}

describe("a kept root", () => {
  test("a directory on the way made unsearchable: the next call is refused, and served again once it is not", async () => {
    const s = await served();
    chmodSync(s.way, 0o000);
    expect((await s.read(join(s.root, "f.txt"))).code).toBe("core.path.unreadable");
    expect((await s.read("f.txt")).code).toBe("core.path.unreadable");
    chmodSync(s.way, 0o755);
    expect(await s.read("f.txt")).toEqual({ type: "text", text: "inside" });
  }, 30_000);

  test("the root itself made unreadable (search only): the next call is refused", async () => {
    const s = await served();
    chmodSync(s.root, 0o311);
    expect((await s.read("f.txt")).code).toBe("core.path.unreadable");
    chmodSync(s.root, 0o755);
    expect(await s.read("f.txt")).toEqual({ type: "text", text: "inside" });
  }, 30_000);

  test("the root's owner changed, its mode kept: the next call is refused where the new owner shuts it", async () => {
    // rwx for its owner, search only for the rest: once root owns it, the server may search it but not list it
    const s = await served(0o711);
    chownSync(s.root, 0, 0);
    expect((await s.read("f.txt")).code).toBe("core.path.unreadable");
  }, 30_000);

  test("a directory on the way swapped for a link to another root-shaped tree: nothing outside is read", async () => {
    const s = await served();
    const elsewhere = join(s.base, "elsewhere");
    mkdirSync(join(elsewhere, "root"), { recursive: true });
    writeFileSync(join(elsewhere, "root", "f.txt"), "OUTSIDE");
    chownSync(join(elsewhere, "root", "f.txt"), NOBODY, NOBODY);
    renameSync(s.way, join(s.base, "way-moved"));
    symlinkSync(elsewhere, s.way);
    for (const path of ["f.txt", join(s.root, "f.txt")]) {
      const got = await s.read(path);
      expect(got.code).toBe("core.path.unreadable");
      expect(JSON.stringify(got)).not.toContain("OUTSIDE");
    }
    expect((await s.write("new.txt", "x")).code).toBe("core.path.unreadable");
  }, 30_000);

  test("the way to it moved into a git dir, a link left at its name: the root's config is withheld from the next read", async () => {
    const s = await served(0o755, "[remote]\n\turl = TOKEN\n");
    expect(await s.read("config")).toEqual({ type: "text", text: "[remote]\n\turl = TOKEN\n" });
    const git = join(s.base, "repo", ".git");
    for (const dir of ["objects", "refs"]) mkdirSync(join(git, dir), { recursive: true });
    writeFileSync(join(git, "HEAD"), "ref: refs/heads/main\n");
    renameSync(s.way, join(git, "way"));
    symlinkSync(join(git, "way"), s.way);
    for (const path of ["config", join(s.root, "config")]) {
      const got = await s.read(path);
      expect(got.code).toBe("core.path.withheld");
      expect(JSON.stringify(got)).not.toContain("TOKEN");
    }
    expect(await s.read("f.txt")).toEqual({ type: "text", text: "inside" });
  }, 30_000);

  test("the root renamed: the next call is refused, and so is a new directory made at its name", async () => {
    const s = await served();
    renameSync(s.root, join(s.way, "root-moved"));
    expect((await s.read("f.txt")).code).toBe("core.path.unreadable");
    mkdirSync(s.root);
    writeFileSync(join(s.root, "f.txt"), "NEW");
    const got = await s.read("f.txt");
    expect(got.code).toBe("core.path.unreadable");
    expect(JSON.stringify(got)).not.toContain("NEW");
  }, 30_000);

  test("an rta data dir's marks made in the root: the root is withheld from the next call", async () => {
    const s = await served();
    for (const mark of ["record.key", "gate.db"]) writeFileSync(join(s.root, mark), "");
    expect((await s.read("f.txt")).code).toBe("core.path.withheld");
  }, 30_000);

  test("a write at the root's top level leaves the kept root to the next call", async () => {
    const s = await served();
    expect(Object.keys(await s.write("w.txt", "written"))).not.toContain("code");
    expect(await s.read("w.txt")).toEqual({ type: "text", text: "written" });
    expect(await s.read("f.txt")).toEqual({ type: "text", text: "inside" });
  }, 30_000);

  // root may bind-mount here (the tests run as root); where it may not, there is no mount to test
  test.skipIf(!canBindMount())(
    "the root bound over itself read-only: the next write meets the read-only mount, not the one it covers",
    async () => {
      const s = await served();
      const mount = (...args: string[]) => expect(Bun.spawnSync(["mount", ...args]).exitCode).toBe(0);
      mount("--bind", s.root, s.root);
      try {
        mount("-o", "remount,ro,bind", s.root);
        expect((await s.write("w.txt", "written")).code).toBe("fs.readonly");
        expect(existsSync(join(s.root, "w.txt"))).toBe(false);
      } finally {
        Bun.spawnSync(["umount", "-l", s.root]);
      }
    },
    30_000,
  );
});
