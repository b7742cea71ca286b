/**
 * What a SIGKILL leaves holding a secret (no handler runs then) is named with
 * the pid of the rta that made it, and removed by the next run of the same
 * command and by `rta doctor` once that pid runs no process; one a live rta
 * or another user holds is kept. And `rta keys import` reads only a regular
 * file no larger than an identity file.
 */
import { describe, expect, test } from "bun:test";
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { editWaiting, storeHome } from "../support/kvEditing.ts";
import { noStack, rta } from "../support/rta.ts";

/** A pid that ran and ended: no process has it now. */
function deadPid(): number {
  const p = Bun.spawnSync(["sh", "-c", "echo $$"], { stdout: "pipe" });
  return Number(p.stdout.toString().trim());
}

describe("secrets a killed rta left", () => {
  test("kv edit killed with SIGKILL while the editor waits: the next kv edit removes its plaintext and says so", async () => {
    const h = await storeHome("TOPSECRET-value");
    const { child, editorPid, file } = await editWaiting(h.env);
    const left = join(file, "..");
    expect(left).toMatch(new RegExp(`/rta-kv-edit-${child.pid}-[A-Za-z0-9]{6}$`));
    child.kill("SIGKILL");
    await child.exited;
    // the editor it ran (sh exec-ed into sleep, so the same pid) outlives it: the test ends it by its pid
    process.kill(Number(editorPid), "SIGKILL");
    expect(existsSync(file)).toBe(true);
    expect(await Bun.file(file).text()).toContain("TOPSECRET-value");

    const again = await rta(["kv", "edit"], { env: { ...h.env, EDITOR: "true" } });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`rta: removed the plaintext a killed \`rta kv edit\` left: ${left}\n`);
    expect(existsSync(left)).toBe(false);
  });

  test("keys new and keys import remove a dead rta's temporary key beside the identity; a live one's and another user's stay", async () => {
    const home = tempDir();
    const identity = join(home, "keys", "id.txt");
    mkdirSync(join(home, "keys"), { mode: 0o700 });
    const dead = join(home, "keys", `.rta-keys-${deadPid()}-1764600000000.tmp`);
    const live = join(home, "keys", `.rta-keys-${process.pid}-1764600000000.tmp`);
    const others = join(home, "keys", `.rta-keys-${deadPid()}-1764600000001.tmp`);
    const notOurs = join(home, "keys", ".rta-keys-notapid.tmp");
    for (const f of [dead, live, others, notOurs]) writeFileSync(f, "AGE-SECRET-KEY-1LEFT\n", { mode: 0o600 });
    chownSync(others, 65534, 65534);
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
    const made = await rta(["keys", "new"], { env });
    expect(made.code).toBe(0);
    expect(existsSync(identity)).toBe(true);
    expect(existsSync(dead)).toBe(false);
    expect([live, others, notOurs].every((f) => existsSync(f))).toBe(true);
    // keys import sweeps too, and leaves no temporary file of its own
    const dead2 = join(home, "keys", `.rta-keys-${deadPid()}-1764600000002.tmp`);
    writeFileSync(dead2, "AGE-SECRET-KEY-1LEFT\n", { mode: 0o600 });
    const other = join(tempDir(), "other.txt");
    Bun.spawnSync(["age-keygen", "-o", other], { stderr: "pipe" });
    const imported = await rta(["keys", "import", "--force", other], { env });
    expect(imported.code).toBe(0);
    expect(existsSync(dead2)).toBe(false);
    expect(readdirSync(join(home, "keys")).sort()).toEqual(
      [".rta-keys-notapid.tmp", basename(live), basename(others), "id.txt"].sort(),
    );
  });

  test("rta doctor removes what dead rtas left and names it", async () => {
    const home = tempDir();
    const identity = join(home, "id.txt");
    const dead = join(home, `.rta-keys-${deadPid()}-1764600000000.tmp`);
    writeFileSync(dead, "AGE-SECRET-KEY-1LEFT\n", { mode: 0o600 });
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity };
    const r = await rta(["doctor", "--json"], { env });
    const found = JSON.parse(r.stdout).findings.find((f: { check: string }) => f.check === "secret leftovers");
    expect(found).toMatchObject({ status: "note" });
    expect(found.detail).toContain(dead);
    expect(existsSync(dead)).toBe(false);
    const second = await rta(["doctor", "--json"], { env });
    expect(JSON.parse(second.stdout).findings.some((f: { check: string }) => f.check === "secret leftovers")).toBe(
      false,
    );
  });
});

describe("keys import FILE", () => {
  test("a device, a directory or a file too large is refused before it is read", async () => {
    const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: join(tempDir(), "id.txt") };
    for (const path of ["/dev/zero", tempDir()]) {
      const r = await rta(["keys", "import", path], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`rta: error: ${JSON.stringify(path)} is not a regular file (fs.notfile)\n`);
      expect(r.stderr).toContain("rta: hint: ");
      expect(noStack(r.stderr)).toBe(true);
    }
    const big = join(tempDir(), "big.txt");
    writeFileSync(big, "#".repeat(65 * 1024));
    const r = await rta(["keys", "import", big], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.input.toolarge)");
    expect(existsSync(env.RTA_KV_IDENTITY)).toBe(false);
  });
});
