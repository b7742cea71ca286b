/**
 * End to end: rta's own executable under a root. An agent with an fs.write
 * grant overwrote it with a shell script (its mode kept, so still
 * executable): the next `rta` the client or the operator started ran the
 * agent's script as them. The executable, and the path it was started by
 * (a link to it, say), are rta's own places like its dirs.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import { resultJson } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";

/**
 * Grants the agent fs with `granter`, then serves `root` over stdio from an rta
 * started as `command`: the client, and a call that answers a tool's result.
 */
async function servedBy(granter: string, command: string, root: string, env: Record<string, string>) {
  const granted = Bun.spawnSync([granter, "grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env });
  expect(granted.exitCode).toBe(0);
  const transport = new StdioClientTransport({
    command,
    args: ["mcp", "serve", "--agent", "claude", "--root", root],
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) =>
    resultJson(await client.callTool({ name, arguments: args }));
  return { client, call };
}

describe("rta's executable under a root", () => {
  test("is not overwritten, moved, removed or replaced, by its own path or by the link it was started by", async () => {
    const root = realpathSync(tempDir());
    mkdirSync(join(root, "tools/rta"), { recursive: true });
    mkdirSync(join(root, "bin"));
    const bin = join(root, "tools/rta/rta");
    copyFileSync(RTA, bin);
    chmodSync(bin, 0o755);
    symlinkSync(bin, join(root, "bin/rta"));
    writeFileSync(join(root, "evil.sh"), "#!/bin/sh\necho planted\n");
    const data = tempDir();
    const env = { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    const { client, call } = await servedBy(bin, join(root, "bin/rta"), root, env);
    try {
      const cases: [string, Record<string, unknown>][] = [
        ["fs_write", { path: "tools/rta/rta", content: "#!/bin/sh\necho planted\n", mode: "overwrite" }],
        ["fs_write", { path: "bin/rta", content: "#!/bin/sh\necho planted\n", mode: "overwrite" }],
        ["fs_move", { from: "evil.sh", to: "tools/rta/rta", overwrite: true }],
        ["fs_move", { from: "evil.sh", to: "bin/rta", overwrite: true }],
        ["fs_move", { from: "tools/rta/rta", to: "rta-old" }],
        ["fs_move", { from: "tools", to: "tools-old" }],
        ["fs_rm", { path: "bin/rta" }],
        ["fs_rm", { path: "tools", recursive: true }],
      ];
      for (const [name, args] of cases)
        expect([name, args, (await call(name, args)).code]).toEqual([name, args, "core.path.withheld"]);
      expect(readFileSync(bin).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // still the ELF it was
      // beside it, the root is written as before
      expect(await call("fs_write", { path: "bin/other", content: "x" })).toMatchObject({ value: { created: true } });
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe("rta started by its bare name, through PATH", () => {
  // A dir on PATH before the one rta is found in: an `rta` put there (a script moved in, its mode kept) runs instead.
  test("no rta is put in a PATH dir ahead of it", async () => {
    const root = realpathSync(tempDir());
    for (const dir of ["early", "bin"]) mkdirSync(join(root, dir));
    copyFileSync(RTA, join(root, "bin/rta"));
    chmodSync(join(root, "bin/rta"), 0o755);
    writeFileSync(join(root, "tool.sh"), "#!/bin/sh\necho tool\n");
    chmodSync(join(root, "tool.sh"), 0o755);
    const data = tempDir();
    const env = {
      PATH: `${join(root, "early")}:${join(root, "bin")}:${process.env.PATH ?? ""}`,
      HOME: data,
      RTA_DATA_DIR: data,
      RTA_CONFIG_DIR: tempDir(),
    };
    const { client, call } = await servedBy("rta", "rta", root, env);
    try {
      expect((await call("fs_move", { from: "tool.sh", to: "early/rta" })).code).toBe("core.path.withheld");
      expect((await call("fs_write", { path: "early/rta", content: "#!/bin/sh\n" })).code).toBe("core.path.withheld");
      expect((await call("fs_rm", { path: "bin/rta" })).code).toBe("core.path.withheld");
      expect(Bun.which("rta", { PATH: env.PATH })).toBe(join(root, "bin/rta"));
    } finally {
      await client.close();
    }
  }, 30_000);
});
