/**
 * End to end: a file bind-mounted onto a name under a root. The kernel names
 * such a file by the name it was mounted on, so neither its real path nor a
 * place's identity (a directory's) said it was rta's: record.key mounted into
 * a root was read, hashed and searched like any file there. A file that is a
 * mount of its own, from a file system one of rta's places is on, is withheld
 * from agents. The server runs in a mount
 * namespace of its own (unshare, as root), where the test mounts the files.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";
import { stdioLines } from "../support/stdioLines.ts";

type Answer = { id: number; result?: { content: { text: string }[] } };

const asRoot = process.getuid?.() === 0 && Bun.which("unshare") !== null && Bun.which("mount") !== null;

test.skipIf(!asRoot)("a file mounted under a root is withheld: rta's record.key is not read through it", async () => {
  const base = realpathSync(tempDir());
  const root = join(base, "root");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "key.txt"), "");
  writeFileSync(join(root, "sub", "notes.txt"), "");
  writeFileSync(join(root, "plain.txt"), "plain text\n");
  writeFileSync(join(root, "hosts"), "");
  mkdirSync(join(base, "other"));
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  // a first server makes the data dir's files
  await (await connect("legacy", ["--agent", "a"], { dataDir: data, env })).close();
  const key = readFileSync(join(data, "record.key"), "utf8").trim();
  expect(key.length).toBeGreaterThan(0);

  const mounts = [
    `mount --bind ${join(data, "record.key")} ${join(root, "key.txt")}`,
    `mount --bind ${join(data, "record.key")} ${join(root, "sub", "notes.txt")}`,
    // a file of another file system mounted the same way (a container's /etc/hosts)
    `mount -t tmpfs none ${join(base, "other")}`,
    `echo 127.0.0.1 here > ${join(base, "other", "hosts")}`,
    `mount --bind ${join(base, "other", "hosts")} ${join(root, "hosts")}`,
  ].join(" && ");
  const proc = Bun.spawn(
    [
      "unshare",
      "-m",
      "--propagation",
      "private",
      "sh",
      "-c",
      `${mounts} && exec "$0" "$@"`,
      RTA,
      "mcp",
      "serve",
      "--agent",
      "a",
      "--root",
      root,
    ],
    {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", HOME: data, ...env },
    },
  );
  const { out, until, send } = stdioLines<Answer>(proc);
  let id = 0;
  const ask = async (method: string, params: unknown): Promise<Answer | undefined> => {
    id += 1;
    await send(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    await until(() => out.some((a) => a.id === id));
    return out.find((a) => a.id === id);
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const answer = await ask("tools/call", { name, arguments: args });
    return resultJson(answer?.result);
  };
  try {
    await ask("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    await send(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

    const mounted = join(root, "key.txt");
    for (const tool of ["fs_read", "fs_hash", "fs_stat"])
      expect((await call(tool, { path: mounted })).code).toBe("core.path.withheld");
    const found = await call("fs_grep", { path: root, pattern: key.slice(0, 16) });
    expect(found.rows).toEqual([]);
    expect(JSON.stringify(await call("fs_tree", { path: root }))).not.toContain(key);
    // a file that is no mount is read as before, and so is one mounted from a file system no place is on
    expect(await call("fs_read", { path: join(root, "plain.txt") })).toMatchObject({ text: "plain text\n" });
    expect(await call("fs_read", { path: join(root, "hosts") })).toMatchObject({ text: "127.0.0.1 here\n" });
  } finally {
    proc.stdin.end();
    await proc.exited;
  }
});
