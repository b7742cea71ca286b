/**
 * End to end: plugins installed with `rta pkg`, offered over MCP on both
 * eras, removed; a grant pinned to the binary it was issued against, so a
 * binary replaced under a running server leaves it covering nothing; and the
 * pkg verbs never tools.
 */
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { installPlugin, MEMO_PLUGIN, NOTE_PLUGIN } from "../support/plugins.ts";
import { noStack, RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

function dirsEnv() {
  const data = tempDir();
  const config = tempDir();
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: tempDir() } };
}

describe("rta pkg install", () => {
  test("copies the binary, records its sha256 and what it declares, and lists it", async () => {
    const { data, env } = dirsEnv();
    const ran = await rta(["pkg", "install", MEMO_PLUGIN, "--yes"], { env });
    expect(ran.code).toBe(0);
    const sha = new Bun.CryptoHasher("sha256").update(readFileSync(MEMO_PLUGIN)).digest("hex");
    // piped: the plugin's row on stdout, what it declares on stderr
    expect(ran.stdout).toBe(`memo\t1.0.0\t${sha}\n`);
    expect(ran.stderr).toContain(`plugin memo 1.0.0 (sha256 ${sha}) declares:`);
    expect(ran.stderr).toMatch(/memo\.put\s+write/);
    expect(ran.stderr).toMatch(/memo\.get\s+read/);
    const copy = join(data, "plugins", "rta-plugin-memo");
    expect(statSync(copy).mode & 0o777).toBe(0o700);
    expect(statSync(join(data, "plugins")).mode & 0o777).toBe(0o700);
    const index = JSON.parse(readFileSync(join(data, "plugins", "index.json"), "utf8"));
    expect(index.version).toBe(1);
    expect(index.plugins.memo).toMatchObject({ version: "1.0.0", sha256: sha, described: { name: "memo" } });

    const listed = await rta(["pkg", "list"], { env });
    expect(listed).toEqual({ code: 0, stdout: `memo\t1.0.0\t${sha}\tmemo.get,memo.put\tok\n`, stderr: "" });
    const json = JSON.parse((await rta(["pkg", "list", "--json"], { env })).stdout);
    expect(json).toMatchObject({ total: 1, plugins: [{ name: "memo", sha256: sha, state: "ok" }] });
    expect((await rta(["pkg", "verify"], { env })).code).toBe(0);

    // the CLI offers it as it offers a built-in
    expect((await rta(["memo", "put", "k", "--text", "hello"], { env })).code).toBe(0);
    expect(JSON.parse((await rta(["memo", "get", "k", "--json"], { env })).stdout)).toMatchObject({
      value: { name: "k", text: "hello" },
    });
  });

  test("piped without --yes it installs nothing and says how", async () => {
    const { data, env } = dirsEnv();
    const ran = await rta(["pkg", "install", MEMO_PLUGIN], { env });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain("(core.plugin.declined)");
    expect(ran.stderr).toContain("--yes");
    expect(existsSync(join(data, "plugins", "rta-plugin-memo"))).toBe(false);
  });

  test("on a terminal it asks, and a no installs nothing", async () => {
    const { data, env } = dirsEnv();
    const no = await onTerminal(["pkg", "install", MEMO_PLUGIN], env, "n\n");
    expect(no.out).toContain("install it? [y/N]");
    expect(no.out).toContain("core.plugin.declined");
    expect(existsSync(join(data, "plugins", "rta-plugin-memo"))).toBe(false);
    const yes = await onTerminal(["pkg", "install", MEMO_PLUGIN], env, "y\n");
    expect(yes.code).toBe(0);
    expect(yes.out).toContain("installed plugin memo 1.0.0");
    const json = JSON.parse((await rta(["pkg", "install", MEMO_PLUGIN, "--yes", "--json"], { env })).stdout);
    expect(Object.keys(json)).toEqual(["name", "version", "sha256", "installed", "capabilities"]);
    expect(json.capabilities).toEqual([
      { name: "memo.get", safety: "read" },
      { name: "memo.put", safety: "write" },
    ]);
  });

  test("refuses a file not named rta-plugin-<name>, and one that is not executable", async () => {
    const { env } = dirsEnv();
    const dir = tempDir();
    const odd = join(dir, "memo\tplugin\x1b[31m");
    copyFileSync(MEMO_PLUGIN, odd);
    const named = await rta(["pkg", "install", odd, "--yes"], { env });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("rta-plugin-<name>");
    expect(named.stderr).not.toContain("\x1b");
    const plain = join(dir, "rta-plugin-memo");
    copyFileSync(MEMO_PLUGIN, plain);
    chmodSync(plain, 0o644);
    const notExec = await rta(["pkg", "install", plain, "--yes"], { env });
    expect(notExec.code).toBe(2);
    expect(notExec.stderr).toContain("not an executable file");
    expect(notExec.stderr).toContain(`\`chmod +x ${plain}\``);
    expect(noStack(notExec.stderr)).toBe(true);
    // a directory is no program chmod could make
    const folder = join(tempDir(), "rta-plugin-memo");
    mkdirSync(folder);
    const notFile = await rta(["pkg", "install", folder, "--yes"], { env });
    expect(notFile.code).toBe(2);
    expect(notFile.stderr).toContain("give the path of its binary, a regular file");
    expect(notFile.stderr).not.toContain("chmod");
    // a name rta has as an area already (a built-in, or one never a tool) is no plugin's
    for (const area of ["fs", "grant"]) {
      const taken = join(tempDir(), `rta-plugin-${area}`);
      copyFileSync(MEMO_PLUGIN, taken);
      const ran = await rta(["pkg", "install", taken, "--yes"], { env });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`rta has an area or command named ${area} already`);
    }
  });

  test("a plugin that fails describe is not installed, and the hint says so rather than sending the person to doctor", async () => {
    const { env } = dirsEnv();
    const bad = join(tempDir(), "rta-plugin-mute");
    writeFileSync(bad, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const ran = await rta(["pkg", "install", bad, "--yes"], { env });
    expect(ran.code).toBe(4);
    expect(ran.stderr).toContain(
      "plugin mute is unavailable: it exited before answering describe (core.plugin.invalid)",
    );
    expect(ran.stderr).toContain("rta: hint: nothing was installed:");
    expect(ran.stderr).not.toContain("rta doctor");
    expect((await rta(["pkg", "list"], { env })).stdout).toBe("");
  });

  test("a relative path that names no file is said with the directory it was taken from", async () => {
    const { env } = dirsEnv();
    const cwd = tempDir();
    const ran = Bun.spawnSync([RTA, "pkg", "install", "dist/plugins/rta-plugin-note", "--yes"], {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    expect(ran.exitCode).toBe(2);
    expect(ran.stderr.toString()).toContain(
      `rta: hint: give the path of the plugin's binary: a relative one starts at the current directory, ${cwd}\n`,
    );
  });

  test("a torn index is refused with what to do, and the built-ins are still served", async () => {
    const { data, env } = dirsEnv();
    mkdirSync(join(data, "plugins"), { recursive: true });
    writeFileSync(join(data, "plugins", "index.json"), '{"version":1,"plug');
    const listed = await rta(["pkg", "list"], { env });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("(core.plugin.index)");
    expect((await rta(["sys", "info", "--json"], { env })).code).toBe(0);
    const doctor = await rta(["doctor"], { env });
    expect(doctor.stdout).toMatch(/fail\tplugin \(index\)\tleft out: the index of installed plugins/);
  });
});

for (const era of ["legacy", "modern"] as Era[]) {
  test(`an installed plugin is served over MCP (${era}), and gone once removed`, async () => {
    const { data, config, env } = dirsEnv();
    await installPlugin(MEMO_PLUGIN, data, env);
    const s = await connect(era, ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const tools = (await s.client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("memo_get");
      expect(tools).toContain("memo_put");
      expect(tools.some((t) => t.startsWith("pkg"))).toBe(false);
      // a free read runs; a write needs a grant
      const put = resultJson(await s.client.callTool({ name: "memo_put", arguments: { name: "k", text: "x" } }));
      expect(put.code).toBe("core.grant.required");
      expect((await rta(["memo", "put", "k", "--text", "kept"], { env })).code).toBe(0);
      const got = resultJson(await s.client.callTool({ name: "memo_get", arguments: { name: "k" } }));
      expect(got).toMatchObject({ type: "object", value: { name: "k", text: "kept" } });
      // every pkg verb is answered as any name that is no tool
      for (const name of ["pkg_install", "pkg_list", "pkg_remove", "pkg_verify"]) {
        const r = await s.client.callTool({ name, arguments: {} }).catch((err: Error) => err);
        const text = r instanceof Error ? r.message : JSON.stringify(r);
        expect(text).toContain("unknown tool");
      }
    } finally {
      await s.close();
    }
    const removed = await rta(["pkg", "remove", "memo"], { env });
    expect(removed).toEqual({ code: 0, stdout: "memo\n", stderr: "" });
    expect(existsSync(join(data, "plugins", "rta-plugin-memo"))).toBe(false);
    const again = await connect(era, ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      expect((await again.client.listTools()).tools.map((t) => t.name)).not.toContain("memo_get");
    } finally {
      await again.close();
    }
    const unknown = await rta(["pkg", "remove", "memo"], { env });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain("(core.plugin.unknown)");
  });
}

describe("a grant is pinned to the plugin binary it was issued against", () => {
  test("a replaced binary makes the grant cover nothing: the next call is refused with the hint, and grant list --detail marks it", async () => {
    const { data, config, env } = dirsEnv();
    await installPlugin(MEMO_PLUGIN, data, env);
    const sha = JSON.parse(readFileSync(join(data, "plugins", "index.json"), "utf8")).plugins.memo.sha256;
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const granted = await rta(["grant", "allow", "memo", "--agent", "claude", "--ttl", "30m", "--json"], { env });
      expect(granted.code).toBe(0);
      expect(JSON.parse(granted.stdout).digest).toBe(sha);
      const ok = await s.client.callTool({ name: "memo_put", arguments: { name: "k", text: "one" } });
      expect(resultJson(ok)).toMatchObject({ value: { name: "k", kept: true } });

      // someone replaces the installed binary in place
      appendFileSync(join(data, "plugins", "rta-plugin-memo"), "\n# changed\n");
      const refused = resultJson(await s.client.callTool({ name: "memo_put", arguments: { name: "k", text: "two" } }));
      expect(refused.code).toBe("core.grant.required");
      expect(refused.hint).toContain("changed since the grant was issued");
      expect(refused.hint).toContain("rta pkg verify");
      // a free read of a binary that is not what described it is refused too
      const read = resultJson(await s.client.callTool({ name: "memo_get", arguments: { name: "k" } }));
      expect(read.code).toBe("core.plugin.invalid");

      const detail = await rta(["grant", "list", "--detail"], { env });
      expect(detail.stdout).toContain("plugin memo changed since it was issued");
      expect(detail.stdout).toContain("rta pkg verify");
      const json = JSON.parse((await rta(["grant", "list", "--detail", "--json"], { env })).stdout);
      expect(json.grants[0].fix).toContain("rta pkg verify");

      const verify = await rta(["pkg", "verify"], { env });
      expect(verify.code).toBe(1);
      expect(verify.stdout).toMatch(/^memo\t1\.0\.0\t[0-9a-f]{64}\tmemo\.get,memo\.put\tchanged\n$/);
      expect(verify.stderr).toContain("memo");
      const doctor = await rta(["doctor"], { env });
      expect(doctor.stdout).toContain("plugin memo\tits binary changed since it was installed");
      // a person's own call runs it, described anew, and is told on stderr that it is not the binary installed
      const person = await rta(["memo", "get", "k"], { env });
      expect(person.stderr).toContain("rta: note: plugin memo is not the binary that was installed (it hashes to ");
      expect(person.stdout).not.toContain("rta: note");
      // and no new grant is pinned to a binary nobody installed
      const regrant = await rta(["grant", "allow", "memo", "--agent", "claude", "--ttl", "30m"], { env });
      expect(regrant.code).toBe(3);
      expect(regrant.stderr).toContain("(core.plugin.changed)");
    } finally {
      await s.close();
    }
    // the person installs the new binary and grants again: a new session's call goes through
    const dir = tempDir();
    copyFileSync(join(data, "plugins", "rta-plugin-memo"), join(dir, "rta-plugin-memo"));
    await installPlugin(join(dir, "rta-plugin-memo"), data, env);
    expect((await rta(["pkg", "verify"], { env })).code).toBe(0);
    expect((await rta(["grant", "allow", "memo", "--agent", "claude", "--ttl", "30m"], { env })).code).toBe(0);
    const fresh = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const ok = await fresh.client.callTool({ name: "memo_put", arguments: { name: "k", text: "three" } });
      expect(resultJson(ok)).toMatchObject({ value: { name: "k", kept: true } });
    } finally {
      await fresh.close();
    }
  });
});

test("a plugin left out is said as such when a person calls it, and in doctor and pkg list", async () => {
  const { data, env } = dirsEnv();
  await installPlugin(MEMO_PLUGIN, data, env);
  rmSync(join(data, "plugins", "rta-plugin-memo"));
  const called = await rta(["memo", "get", "k"], { env });
  expect(called.code).toBe(2);
  expect(called.stderr).toContain("plugin memo is installed but left out (its binary is missing)");
  expect((await rta(["doctor"], { env })).stdout).toContain("fail\tplugin memo\tleft out: its binary is missing");
  expect((await rta(["pkg", "list", "--json"], { env })).stdout).toContain('"reason":"its binary is missing"');
  expect((await rta(["sys", "info"], { env })).code).toBe(0);
});

describe("the note plugin", () => {
  test("there is no note area until it is installed; installed, its calls and its connection's folder work", async () => {
    const { data, config, env } = dirsEnv();
    const before = await rta(["note", "list"], { env });
    expect(before.code).toBe(2);
    expect((await rta(["explain", "--json"], { env })).stdout).not.toContain('"note.add"');
    await installPlugin(NOTE_PLUGIN, data, env);
    const folder = join(tempDir(), "work-notes");
    writeFileSync(
      join(config, "config.toml"),
      `[connections.work]\narea = "note"\nfolder = "${folder}"\n\n[profiles.work]\narea = "note"\nconnection = "work"\n`,
    );
    expect((await rta(["note", "add", "plan", "--body", "one"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      expect((await s.client.listTools()).tools.map((t) => t.name)).toContain("note_add");
      const listed = resultJson(await s.client.callTool({ name: "note_list", arguments: {} }));
      expect(listed).toMatchObject({ type: "table", total: 1 });
      expect(
        (await rta(["grant", "allow", "note", "--agent", "claude", "--ttl", "30m", "--profile", "work"], { env })).code,
      ).toBe(0);
      const added = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "at work", body: "two", profile: "work" } }),
      );
      expect(added).toMatchObject({ type: "object", value: { title: "at work" } });
      // the profile's connection set the folder the plugin wrote in
      expect(readdirSync(folder).filter((f) => f.endsWith(".json"))).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});

describe("rta pkg whose stdout's reader has gone (`| head` done)", () => {
  test("lists, verifies, installs and removes quietly with 0, as the other operator's commands do", async () => {
    const { env } = dirsEnv();
    expect((await rta(["pkg", "install", MEMO_PLUGIN, "--yes"], { env })).code).toBe(0);
    // a FIFO whose reader closed before rta starts: its first write to stdout fails with EPIPE, every time
    const fifo = join(tempDir(), "out");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    for (const argv of [["list"], ["verify"], ["install", MEMO_PLUGIN, "--yes"], ["remove", "memo"]]) {
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY);
      closeSync(reader);
      const proc = Bun.spawn([RTA, "pkg", ...argv], {
        stdin: "ignore",
        stdout: writer,
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "", ...env },
      });
      closeSync(writer);
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      expect({ argv, code, internal: stderr.includes("core.internal") }).toEqual({ argv, code: 0, internal: false });
    }
  });

  test("a stdout that takes no more for another reason (a full disk) is said as core.output.failed, not internal", async () => {
    const { env } = dirsEnv();
    expect((await rta(["pkg", "install", MEMO_PLUGIN, "--yes"], { env })).code).toBe(0);
    const full = openSync("/dev/full", constants.O_WRONLY);
    const proc = Bun.spawn([RTA, "pkg", "list"], {
      stdin: "ignore",
      stdout: full,
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    closeSync(full);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "rta: error: the output could not be written (ENOSPC) (core.output.failed)\nrta: hint: write it somewhere with room\n",
    );
  });
});

test("a person's call to a plugin ends once it is answered, on a terminal as piped, its child with it", async () => {
  const { data, env } = dirsEnv();
  await installPlugin(NOTE_PLUGIN, data, env);
  const piped = await rta(["note", "add", "plan", "--body", "one"], { env });
  expect(piped.code).toBe(0);
  const shown = await onTerminal(["note", "list"], env);
  expect(shown.code).toBe(0);
  expect(shown.out).toContain("plan");
  // no plugin process of this data dir is left behind
  const left = Bun.spawnSync(["pgrep", "-f", join(data, "plugins")]);
  expect(left.stdout.toString()).toBe("");
});

test("a person who upgraded with notes kept is told note is a plugin now, with the path to install, and finds them after", async () => {
  const { data, env } = dirsEnv();
  mkdirSync(join(data, "notes"));
  writeFileSync(
    join(data, "notes", "plan-1a2b3c.json"),
    JSON.stringify({ id: "plan-1a2b3c", title: "plan", body: "one", created: 1, updated: 1 }),
  );
  const install = `\`rta pkg install ${NOTE_PLUGIN}\``;
  const called = await rta(["note", "list"], { env });
  expect(called.code).toBe(2);
  expect(called.stderr).toContain(`rta: hint: note is a plugin now, no longer built in: install it with ${install}`);
  const explained = await rta(["explain", "note.add"], { env });
  expect(explained.stderr).toContain(install);
  const doctor = await rta(["doctor"], { env });
  expect(doctor.stdout).toContain(`note\tplugin note\t${join(data, "notes")} holds notes, and no plugin reads them\t`);
  for (const verb of [
    ["grant", "allow", "note", "--agent", "claude", "--ttl", "5m"],
    ["lock", "note.rm"],
  ]) {
    const refused = await rta(verb, { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`rta: hint: note is a plugin now, no longer built in: install it with ${install}`);
  }
  await installPlugin(NOTE_PLUGIN, data, env);
  expect((await rta(["doctor"], { env })).stdout).not.toContain("no plugin reads them");
  expect((await rta(["explain", "note.add"], { env })).code).toBe(0);
});

test("a config that names note from before says it is a plugin now, with how to install it, and reads once it is", async () => {
  const { data, config, env } = dirsEnv();
  writeFileSync(
    join(config, "config.toml"),
    `[defaults.note]\nlimit = 5\n\n[connections.work]\narea = "note"\nfolder = "${tempDir()}"\n`,
  );
  const checked = await rta(["config", "check"], { env });
  expect(checked.code).toBe(2);
  const install = `install it with \`rta pkg install ${NOTE_PLUGIN}\``;
  expect(checked.stdout).toContain(
    `[connections.work]: no area is named note (note is a plugin now, no longer built in: ${install})`,
  );
  expect(checked.stdout).toContain(`[defaults."note"]: no capability or area is named note (note is a plugin now`);
  await installPlugin(NOTE_PLUGIN, data, env);
  expect((await rta(["config", "check"], { env })).code).toBe(0);
});

describe("rta pkg on a data dir its account cannot open", () => {
  test("is refused as fs.denied with the fix, never core.internal", async () => {
    const data = tempDir();
    mkdirSync(join(data, "plugins"), { mode: 0o700 });
    writeFileSync(join(data, "plugins", "index.json"), '{"version":1,"plugins":{}}');
    chmodSync(data, 0o755);
    for (const args of [
      ["pkg", "list"],
      ["pkg", "install", MEMO_PLUGIN, "--yes"],
      ["pkg", "remove", "memo"],
    ]) {
      // as nobody, so the mode bites (the tests run as root)
      const proc = Bun.spawn(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", RTA, ...args], {
        env: { PATH: process.env.PATH ?? "", HOME: tempDir(), RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(code).toBe(3);
      expect(stderr).toContain("permission denied (fs.denied)");
      expect(stderr).toContain("rta: hint: run it as the person who owns rta's data dir");
      expect(noStack(stderr)).toBe(true);
    }
  });
});
