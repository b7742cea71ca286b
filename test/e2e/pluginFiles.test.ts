/**
 * End to end: every command reads the plugin index and hashes the installed
 * binaries, so one that is not a file (a FIFO, a directory, a link to a
 * device) is named as such, never waited on: a FIFO in its place kept every
 * command, `sys info` as much as `mcp serve`, waiting for good.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pluginFile, pluginsDir } from "../../src/plugins/registry.ts";
import { fixture } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";
import { installPlugin } from "../support/plugins.ts";
import { noStack, rta } from "../support/rta.ts";

const KINDS = [
  ["a FIFO", (path: string) => Bun.spawnSync(["mkfifo", path])],
  ["a directory", (path: string) => mkdirSync(path)],
  ["a link to a device", (path: string) => symlinkSync("/dev/zero", path)],
] as const;

function dirsEnv() {
  const data = tempDir();
  return { data, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), HOME: tempDir() } };
}

describe("a plugin index that is not a file", () => {
  for (const [kind, make] of KINDS) {
    test(`${kind} is refused as core.plugin.index, and the built-ins are served`, async () => {
      const { data, env } = dirsEnv();
      mkdirSync(pluginsDir(data), { recursive: true, mode: 0o700 });
      make(join(pluginsDir(data), "index.json"));
      expect((await rta(["sys", "info", "--json"], { env })).code).toBe(0);
      const listed = await rta(["pkg", "list"], { env });
      expect(listed.code).toBe(1);
      expect(listed.stderr).toContain("(core.plugin.index)");
      expect(noStack(listed.stderr)).toBe(true);
      const doctor = (await rta(["doctor"], { env })).stdout;
      expect(doctor).toContain("plugin (index)\tleft out");
      // doctor's fix is the refusal's hint, word for word
      const hint = /rta: hint: (.*)/.exec(listed.stderr)?.[1] ?? "";
      expect(hint).not.toBe("");
      expect(doctor).toContain(`\t${hint}`);
    });
  }
});

describe("an installed binary that is not a file", () => {
  for (const [kind, make] of KINDS) {
    test(`${kind} leaves the plugin out, and the built-ins are served`, async () => {
      const { data, env } = dirsEnv();
      await installPlugin(fixture("demo"), data, env);
      rmSync(pluginFile(data, "demo"));
      make(pluginFile(data, "demo"));
      expect((await rta(["sys", "info", "--json"], { env })).code).toBe(0);
      const listed = await rta(["pkg", "list", "--json"], { env });
      expect(JSON.parse(listed.stdout).plugins[0]).toMatchObject({ name: "demo", state: "invalid" });
      expect((await rta(["pkg", "verify"], { env })).code).toBe(1);
      const called = await rta(["demo", "echo", "hi"], { env });
      expect(called.code).toBe(2);
      expect(called.stderr).toContain("plugin demo is installed but left out");
    });
  }
});

describe("an install that cannot take the index lock", () => {
  test("is refused and leaves the installed binary as it was, so grants on it still cover it", async () => {
    const { data, env } = dirsEnv();
    await installPlugin(fixture("demo"), data, env);
    const other = join(tempDir(), "rta-plugin-demo");
    writeFileSync(other, `${readFileSync(fixture("demo"), "utf8")}\n# another build\n`);
    chmodSync(other, 0o755);
    // another rta, alive, holds the lock past the wait
    const holder = Bun.spawn(["sleep", "60"]);
    try {
      writeFileSync(join(pluginsDir(data), "index.lock"), String(holder.pid));
      const ran = await rta(["pkg", "install", other, "--yes"], { env });
      expect(ran.code).not.toBe(0);
      expect(ran.stderr).toContain("another rta is changing the installed plugins");
    } finally {
      holder.kill();
    }
    rmSync(join(pluginsDir(data), "index.lock"));
    const verify = await rta(["pkg", "verify"], { env });
    expect(verify.stdout).toMatch(/\tok\n$/);
    expect(verify.code).toBe(0);
    expect(readdirSync(pluginsDir(data)).sort()).toEqual(["index.json", "rta-plugin-demo"]);
  }, 30_000);
});
