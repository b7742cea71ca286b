/**
 * End to end: what a plugin declares reaches a person's terminal (pkg install,
 * pkg list, explain, a command's help), so a describe holding a terminal's
 * control or a bidirectional override is refused, at install and when an
 * index already holds one.
 */
import { expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { pluginFile, pluginsDir, writeIndex } from "../../src/plugins/registry.ts";
import { fixture } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

function dirsEnv() {
  const data = tempDir();
  return { data, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), HOME: tempDir() } };
}

test("pkg install refuses a plugin whose describe holds escape codes, and installs nothing", async () => {
  const { data, env } = dirsEnv();
  const ran = await rta(["pkg", "install", fixture("loud"), "--yes"], { env });
  expect(ran.code).toBe(4);
  expect(ran.stderr).toContain("(core.plugin.invalid)");
  expect(ran.stderr).toContain("a control character at /capabilities/0/summary");
  expect(ran.stderr).not.toContain("\x1b");
  expect(existsSync(pluginFile(data, "loud"))).toBe(false);
});

test("one an index holds already is left out: explain, help and pkg list print none of its codes", async () => {
  const { data, env } = dirsEnv();
  mkdirSync(pluginsDir(data), { recursive: true, mode: 0o700 });
  copyFileSync(fixture("loud"), pluginFile(data, "loud"));
  const sha = new Bun.CryptoHasher("sha256").update(readFileSync(fixture("loud"))).digest("hex");
  const described = {
    name: "loud",
    version: "1.0.0",
    protocol: 1,
    capabilities: [
      {
        name: "loud.say",
        summary: "Say \x1b[2J\x1b]0;owned\x07\u202eit\nnow",
        safety: "read",
        inputs: {},
        result: { shape: "text" },
        examples: [],
      },
    ],
  };
  writeIndex(data, {
    version: 1,
    plugins: { loud: { version: "1.0.0", sha256: sha, installed: "2026-01-01T00:00:00Z", described } },
  });
  for (const args of [["explain", "loud.say"], ["explain"], ["loud", "--help"], ["--help"], ["pkg", "list"]]) {
    const piped = await rta(args, { env });
    expect(`${piped.stdout}${piped.stderr}`).not.toContain("\x1b]0;");
    const shown = await onTerminal(args, env, "");
    expect(shown.out).not.toContain("\x1b]0;");
    expect(shown.out).not.toContain("\u202e");
  }
  const listed = await rta(["pkg", "list", "--json"], { env });
  expect(JSON.parse(listed.stdout).plugins[0]).toMatchObject({ name: "loud", state: "invalid" });
});

test("the question on a terminal comes with how many it declares of each safety class", async () => {
  const { data, env } = dirsEnv();
  const asked = await onTerminal(["pkg", "install", fixture("demo")], env, "n\n");
  expect(asked.out).toMatch(/in all: 6 capabilities, 5 read, 1 write\r?\n(\S.*\r?\n)*install it\? \[y\/N\]/);
  expect(existsSync(pluginFile(data, "demo"))).toBe(false);
  const piped = await rta(["pkg", "install", fixture("demo"), "--yes"], { env });
  expect(piped.stderr).toContain("in all: 6 capabilities, 5 read, 1 write\n");
});
