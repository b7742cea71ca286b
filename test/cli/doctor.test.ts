/**
 * `rta doctor` and `rta config check`, in-process against a factory of fakes:
 * what is missing and how to fix it, and the exit status that says so.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { runCli } from "../support/runCli.ts";

function dirsWith(configText?: string) {
  const data = tempDir();
  const config = tempDir();
  if (configText !== undefined) writeFileSync(join(config, "config.toml"), configText);
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

describe("rta doctor", () => {
  test("on a fresh machine says what is missing and how, and exits 0", async () => {
    const r = await runCli(["doctor", "--json"], {
      env: { RTA_DATA_DIR: join(tempDir(), "new-data"), RTA_CONFIG_DIR: join(tempDir(), "new-config") },
    });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(true);
    expect(report.findings.find((f: { check: string }) => f.check === "data dir")).toMatchObject({
      status: "note",
      fix: expect.stringContaining("first use"),
    });
  });

  test("a broken config and an unreadable root are failures with their fix, and it exits non-zero", async () => {
    const missingRoot = join(tempDir(), "gone");
    const { env, config } = dirsWith(`roots = ["${missingRoot}"]\n[defaults."proc.list"]\nlimit = 0\n`);
    const r = await runCli(["doctor", "--json"], { env });
    expect(r.code).toBe(1);
    const fails = JSON.parse(r.stdout).findings.filter((f: { status: string }) => f.status === "fail");
    expect(fails.map((f: { check: string }) => f.check).sort()).toEqual(["config", "root"]);
    expect(fails.find((f: { check: string }) => f.check === "root").fix).toContain("does not exist");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "config.toml"), "nonsense");
    const broken = await runCli(["config", "check", "--json"], { env });
    expect(broken.code).toBe(2);
    expect(JSON.parse(broken.stdout).problems[0]).toStartWith("is not TOML");
  });

  test("a data dir that is a file is said as that, with no errno, by a grant verb and by doctor", async () => {
    const file = join(tempDir(), "not-a-dir");
    writeFileSync(file, "x");
    const env = { RTA_DATA_DIR: file, RTA_CONFIG_DIR: tempDir() };
    const list = await runCli(["grant", "list"], { env });
    expect(list.stderr).toContain("the data dir is not a directory (core.store.unavailable)");
    expect(list.stderr).not.toContain("EEXIST");
    const r = await runCli(["doctor", "--json"], { env });
    expect(JSON.parse(r.stdout).findings[0]).toMatchObject({
      check: "data dir",
      status: "fail",
      detail: `${file} is not a directory`,
    });
  });
});

describe("a team policy's never list", () => {
  test("a well-formed name that is no capability or area is said by rta doctor", async () => {
    const { config, env } = dirsWith();
    writeFileSync(join(config, "policy.toml"), 'never = ["fs.wirte", "fs.rm"]\n');
    const doctor = JSON.parse((await runCli(["doctor", "--json"], { env })).stdout);
    const said = doctor.findings.filter((f: { check: string }) => f.check === "team policy");
    expect(said.some((f: { detail: string }) => f.detail.includes("fs.wirte"))).toBe(true);
    expect(said.some((f: { detail: string }) => f.detail.includes('"fs.rm"'))).toBe(false);
  });
});
