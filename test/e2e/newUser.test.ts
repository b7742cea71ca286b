/**
 * End to end: what a person who has never seen rta meets following README.md
 * and docs/secrets.md word for word, on the built binary: `rta explain` of a
 * verb that is never a tool says so, and a key added in `rta kv edit` needs
 * no time written by hand, since the edit stamps it.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { noStack, rta } from "../support/rta.ts";

describe("rta explain of a verb that is never a tool", () => {
  test("says it is the person's and the command that runs it, never that there is no capability", async () => {
    for (const name of ["kv.copy", "kv_edit", "keys.export", "grant", "upstream"]) {
      const r = await rta(["explain", name]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("never a tool");
      expect(r.stdout).not.toContain("no capability");
    }
    const piped = await rta(["explain", "kv.copy"]);
    expect(piped.stdout.split("\t").slice(0, 3)).toEqual(["kv.copy", "never a tool", "rta kv copy"]);
    const json = await rta(["explain", "keys_import", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: "keys.import",
      never_a_tool: true,
      command: "rta keys import",
    });
    const unknown = await rta(["explain", "kv.nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("(core.tool.unknown)");
    expect(noStack(unknown.stderr)).toBe(true);
  });
});

describe("rta kv edit, as a person adds a key", () => {
  test("a line with a name and a value is added and stamped with the time", async () => {
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), HOME: tempDir() };
    expect((await rta(["keys", "new"], { env })).code).toBe(0);
    expect((await rta(["kv", "set", "old-key"], { env, stdin: "v0" })).code).toBe(0);
    const script = join(tempDir(), "ed.sh");
    writeFileSync(script, `#!/bin/sh\necho '{"name":"new-key","value":"v1","comment":"by hand"}' >> "$1"\n`);
    chmodSync(script, 0o755);
    const r = await rta(["kv", "edit", "--json"], { env: { ...env, EDITOR: script } });
    expect(r.stderr).toBe("rta: kv store written: 1 added, 0 changed, 0 removed\n");
    expect(JSON.parse(r.stdout)).toEqual({ added: ["new-key"], changed: [], removed: [] });
    expect(r.code).toBe(0);
    expect((await rta(["kv", "get", "new-key"], { env })).stdout).toBe("v1");
    const listed = (await rta(["kv", "list"], { env })).stdout.split("\n")[0]?.split("\t");
    expect(listed?.slice(0, 2)).toEqual(["new-key", "by hand"]);
    expect(listed?.[2]).toMatch(/^20\d\d-\d\d-\d\dT.*Z$/);
  });
});

describe("docs/secrets.md's age CLI write, on a store that has only ever had its own identity", () => {
  test("rta keys recipients, cut to its first column, is what age -R reads, and rta opens the result", async () => {
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), HOME: tempDir() };
    expect((await rta(["keys", "new"], { env })).code).toBe(0);
    // no kv.recipients yet: the page once pointed age -R at it
    expect(existsSync(join(env.RTA_DATA_DIR, "kv.recipients"))).toBe(false);
    const listed = await rta(["keys", "recipients"], { env });
    const recipients = join(tempDir(), "recipients.txt");
    writeFileSync(
      recipients,
      listed.stdout
        .split("\n")
        .map((l) => l.split("\t")[0])
        .join("\n"),
    );
    const plain = join(tempDir(), "plain.txt");
    writeFileSync(plain, '# rta kv 1\n{"name":"x","value":"y","modified":"2026-12-01T14:00:00.000Z"}\n');
    const age = Bun.spawnSync(["age", "-R", recipients, "-o", join(env.RTA_DATA_DIR, "kv.age"), plain]);
    expect(age.exitCode).toBe(0);
    expect((await rta(["kv", "get", "x"], { env })).stdout).toBe("y");
  });
});

describe("a value typed after the name", () => {
  test("rta kv set NAME VALUE is refused with where the value goes, and the value is in no output", async () => {
    const r = await rta(["kv", "set", "deploy-key", "hunter2-value"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("(core.cli.usage)");
    expect(r.stderr).toContain(
      "rta: hint: the value is read from stdin, never from the command line, where the shell's history and ps keep it: `printf '%s' \"$VALUE\" | rta kv set NAME`;",
    );
    expect(r.stderr).not.toContain("hunter2-value");
  });
});

describe("something other than a file where the kv store goes", () => {
  test("a directory or a FIFO at kv.age is refused as fs.notfile with the fix; and so is one at kv.recipients; a FIFO holds no call open", async () => {
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), HOME: tempDir() };
    expect((await rta(["keys", "new"], { env })).code).toBe(0);
    const store = join(env.RTA_DATA_DIR, "kv.age");
    mkdirSync(store);
    const dir = await rta(["kv", "list"], { env });
    expect(dir.code).toBe(1);
    expect(dir.stderr).toBe(
      `rta: error: the kv store ${store} is not a regular file (fs.notfile)\nrta: hint: move it away: \`kv.age.bak\` beside it holds the version before the last write\n`,
    );
    rmdirSync(store);
    expect(Bun.spawnSync(["mkfifo", store]).exitCode).toBe(0);
    // no timeout is needed to see it: before, open() waited for a writer that never came, and the test hung
    const fifo = await rta(["kv", "get", "x"], { env });
    expect(fifo.code).toBe(1);
    expect(fifo.stderr).toContain("(fs.notfile)");
    rmSync(store);
    const recipients = join(env.RTA_DATA_DIR, "kv.recipients");
    expect(Bun.spawnSync(["mkfifo", recipients]).exitCode).toBe(0);
    const held = await rta(["kv", "set", "x"], { env, stdin: "v" });
    expect(held.code).toBe(1);
    expect(held.stderr).toContain("the kv recipients file is not a regular file (fs.notfile)");
  });
});

describe("rta doctor and the kv identity", () => {
  test("says there is none yet, and fails one kv would refuse for its mode, with the chmod that fixes it", async () => {
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), HOME: tempDir() };
    const identity = join(env.RTA_CONFIG_DIR, "identity.txt");
    const line = (out: string) => out.split("\n").find((l) => l.includes("\tkv identity\t"));
    const none = await rta(["doctor"], { env });
    expect(line(none.stdout)).toBe(
      `note\tkv identity\tno ${identity} yet\tnothing to do unless you keep secrets: \`rta keys new\` makes one`,
    );
    expect((await rta(["keys", "new"], { env })).code).toBe(0);
    expect(line((await rta(["doctor"], { env })).stdout)).toBe(`ok\tkv identity\t${identity}\t`);
    chmodSync(identity, 0o640);
    const wide = await rta(["doctor"], { env });
    expect(wide.code).toBe(1);
    expect(line(wide.stdout)).toBe(
      `fail\tkv identity\t${identity} may be read or written by others (mode 0640), so kv refuses it\tnarrow it to its owner: chmod 600 ${identity}`,
    );
  });
});

describe("rta mcp install --help on --kv", () => {
  test("does not say the flag is what lets a server open the store, since the config dir's identity needs none", async () => {
    const help = (await rta(["mcp", "install", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain("--kv carry RTA_KV_IDENTITY, so the server opens the kv store with the identity it names");
    expect(help).toContain("is found without it");
  });
});
