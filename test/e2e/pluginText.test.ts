/**
 * End to end: what a plugin declares reaches a person's terminal (pkg install,
 * pkg list, explain, a command's help), so a describe holding a terminal's
 * control or a bidirectional override is refused, at install and when an
 * index already holds one.
 */
import { expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pluginFile, pluginsDir, readIndex, writeIndex } from "../../src/plugins/registry.ts";
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

test("a plugin named as one of rta's own commands is refused, and one an index holds is left out", async () => {
  const { data, env } = dirsEnv();
  const dir = tempDir();
  for (const name of ["help", "explain", "completion"]) {
    const file = join(dir, `rta-plugin-${name}`);
    writeFileSync(file, readFileSync(fixture("demo"), "utf8").replaceAll('"demo', `"${name}`));
    chmodSync(file, 0o755);
    const ran = await rta(["pkg", "install", file, "--yes"], { env });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`rta has an area or command named ${name} already`);
  }
  // installed by an rta that let it: `rta help` is rta's own still
  expect((await rta(["pkg", "install", fixture("demo"), "--yes"], { env })).code).toBe(0);
  const file = join(dir, "rta-plugin-help");
  copyFileSync(file, pluginFile(data, "help"));
  const index = readIndex(data);
  const demo = index.plugins.demo;
  if (demo === undefined) throw new Error("demo is not installed");
  index.plugins.help = {
    version: demo.version,
    installed: demo.installed,
    sha256: new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex"),
    described: JSON.parse(JSON.stringify(demo.described).replaceAll('"demo', '"help')),
  };
  writeIndex(data, index);
  const help = await rta(["help"], { env });
  expect(help.stdout).toContain("Usage: rta [options] [command]");
  expect(help.stdout).not.toContain("help capabilities");
  expect((await rta(["doctor"], { env })).stdout).toContain("plugin help\tleft out: its name is an area or command");
});

test("installing a binary removed before says which live grants issued for it will cover it again", async () => {
  const { env } = dirsEnv();
  expect((await rta(["pkg", "install", fixture("demo"), "--yes"], { env })).code).toBe(0);
  const granted = await rta(["grant", "allow", "demo", "--agent", "claude", "--ttl", "30m"], { env });
  const id = granted.stdout.trim();
  expect(id).toMatch(/^g[0-9a-f]+$/);
  expect((await rta(["pkg", "remove", "demo"], { env })).code).toBe(0);
  const asked = await onTerminal(["pkg", "install", fixture("demo")], env, "n\n");
  expect(asked.out).toContain(
    `a live grant was issued for this very binary, and will cover it as soon as it is installed: ${id}`,
  );
  const again = await rta(["pkg", "install", fixture("demo"), "--yes"], { env });
  expect(again.stderr).toContain(`will cover it as soon as it is installed: ${id}`);
  // once revoked, nothing is said
  expect((await rta(["grant", "revoke", id], { env })).code).toBe(0);
  expect((await rta(["pkg", "remove", "demo"], { env })).code).toBe(0);
  expect((await rta(["pkg", "install", fixture("demo"), "--yes"], { env })).stderr).not.toContain("live grant");
});
