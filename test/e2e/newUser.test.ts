/**
 * End to end: what a person who has never seen rta meets following README.md
 * and docs/secrets.md word for word, on the built binary: a key added in
 * `rta kv edit` needs no time written by hand, since the edit stamps it; the
 * page's age CLI write works on a new store; a value typed after the name is
 * told where it goes; `rta doctor` looks at the identity.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { rta } from "../support/rta.ts";

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
