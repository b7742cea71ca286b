/**
 * `rta config show`: the config as rta reads it, with its secrets masked, so
 * it can be shown on a shared screen or pasted into a ticket. A secret is
 * masked by the name it is kept under and by its shape in any value (a URL's
 * password, a token in a query, a credential header). Run in-process.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { runCli } from "../support/runCli.ts";

test("masks every secret, whatever it is called and wherever it sits, and leaves the rest as it is", async () => {
  const config = tempDir();
  writeFileSync(
    join(config, "config.toml"),
    [
      "[connections.db]",
      'area = "http"',
      'password = "S01"',
      'passwd = "S02"',
      'pwd = "S03"',
      'pass = "S04"',
      'bearer = "S05"',
      'cookie = "S06"',
      'api_key = "S07"',
      'url = "https://user:S08@db.example/x?token=S09&page=2"',
      'dsn = "postgres://app:S10@db.example/app"',
      "timeout_ms = 3000",
      "[profiles.p]",
      'area = "http"',
      'connection = "db"',
      'set = { header = "Authorization: Bearer S11", method = "GET" }',
    ].join("\n"),
  );
  const r = await runCli(["config", "show", "--json"], { env: { RTA_CONFIG_DIR: config } });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toMatch(/S\d\d/);
  const shown = JSON.parse(r.stdout);
  expect(shown.connections.db.values).toMatchObject({
    password: "***",
    url: "https://***@db.example/x?token=***&page=2",
    dsn: "postgres://***@db.example/app",
    timeout_ms: 3000,
  });
  expect(shown.profiles.p.set.method).toBe("GET");
});

test("the store's URL shows no part of its password, one with a / left unencoded included", async () => {
  for (const password of ["S3cr3tPw", "1234/S3cr3tPw"]) {
    const config = tempDir();
    writeFileSync(join(config, "config.toml"), `store = "postgres://rta:${password}@db.example:5432/rta"\n`);
    for (const json of [true, false]) {
      const r = await runCli(["config", "show", ...(json ? ["--json"] : [])], { env: { RTA_CONFIG_DIR: config } });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain("S3cr3tPw");
      expect(r.stdout).not.toContain("1234");
    }
  }
});

test("a value holding C1 controls or a bidi override is shown escaped, on a terminal and piped", async () => {
  const config = tempDir();
  // TOML's \u escapes put the raw characters in the value: CSI as one C1 character, a right-to-left override
  writeFileSync(join(config, "config.toml"), '[connections.db]\narea = "http"\nnote = "a\\u009b2Jb\\u202ec"\n');
  for (const tty of [true, false]) {
    const r = await runCli(["config", "show"], { env: { RTA_CONFIG_DIR: config }, tty });
    if (!tty) expect(r.stdout).toContain("connections.db.values.note\ta\\x9b2Jb\\u202ec\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("a\\x9b2Jb\\u202ec");
    expect(r.stdout).not.toContain("\u009b");
    expect(r.stdout).not.toContain("\u202e");
  }
});

test("--json is the config itself, with what JSON leaves raw escaped", async () => {
  const config = tempDir();
  writeFileSync(join(config, "config.toml"), '[connections.db]\narea = "http"\nnote = "a\\u009b2Jb\\u202ec"\n');
  const r = await runCli(["config", "show", "--json"], { env: { RTA_CONFIG_DIR: config } });
  expect(r.stdout).toContain("a\\u009b2Jb\\u202ec");
  expect(JSON.parse(r.stdout).connections.db.values.note).toBe("a\u009b2Jb\u202ec");
});
