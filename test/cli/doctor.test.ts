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

  test("an entry naming a free read, offsite ones included, or an area of them, is said to have no effect", async () => {
    const { config, env } = dirsWith();
    writeFileSync(
      join(config, "policy.toml"),
      'never = ["eol.check", "sys.info", "eol", "fs", "fs.write", "http.get"]\n',
    );
    const doctor = JSON.parse((await runCli(["doctor", "--json"], { env })).stdout);
    const said = doctor.findings.filter(
      (f: { check: string; detail: string }) => f.check === "team policy" && f.detail.includes("no effect"),
    );
    expect(said).toEqual([
      {
        check: "team policy",
        status: "note",
        detail: 'never names "eol.check", a free read: a free read has no grant to cap, so never has no effect on it',
        fix: "a lock is the way to stop it: `rta lock eol.check`",
      },
      {
        check: "team policy",
        status: "note",
        detail: 'never names "sys.info", a free read: a free read has no grant to cap, so never has no effect on it',
        fix: "a lock is the way to stop it: `rta lock sys.info`",
      },
      {
        check: "team policy",
        status: "note",
        detail:
          'never names "eol", an area of free reads: a free read has no grant to cap, so never has no effect on it',
        fix: "a lock is the way to stop it: `rta lock eol`",
      },
    ]);
    const text = await runCli(["doctor"], { env });
    expect(text.stdout).toContain("a lock is the way to stop it: `rta lock eol.check`");
  });
});

describe("a config.toml that does not read", () => {
  const BROKEN = 'roots = "/srv"\nbogus = 1\n[profiles.w]\nfoo = 1\n[defaults."proc.list"]\nlimit = 0\n';

  test("every other command says so once on stderr, with the file and the fix, and runs without it", async () => {
    const home = tempDir();
    const config = join(home, ".config", "rta");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "config.toml"), "roots = [\n");
    const r = await runCli(["sys", "info", "--json"], { env: { HOME: home, RTA_CONFIG_DIR: config } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).type).toBe("object");
    expect(r.stderr).toBe(
      "rta: warning: ~/.config/rta/config.toml does not read (is not TOML: TOML Parse error: Unterminated array; expected ']'), so rta runs without it\n" +
        "rta: hint: `rta config check` lists every problem in it\n",
    );
    const grants = await runCli(["grant", "list"], { env: { HOME: home, RTA_CONFIG_DIR: config } });
    expect(grants.stderr.match(/rta: warning: /g)).toHaveLength(1);
  });

  test("a config that reads is not mentioned, nor a missing one", async () => {
    expect((await runCli(["sys", "info"], { env: dirsWith('roots = ["/srv"]\n').env })).stderr).toBe("");
    expect((await runCli(["sys", "info"], { env: dirsWith().env })).stderr).toBe("");
  });

  test("rta config check lists every problem, not the first, and says none twice", async () => {
    const { env } = dirsWith(BROKEN);
    const r = await runCli(["config", "check", "--json"], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).problems).toEqual([
      "roots must be a list of absolute paths",
      'has no setting "bogus" (roots, paths, defaults, connections, profiles, upstreams, eol, confirm, limits and store are known)',
      "[profiles.w] needs area = the capabilities it is for",
      '[defaults."proc.list"]: the operator\'s config sets proc.list limit to a value it does not take (limit is 0, outside 1..1000)',
    ]);
    expect(r.stderr).toBe("");
    const plain = await runCli(["config", "check"], { env });
    expect(plain.stdout.trimEnd().split("\n")).toHaveLength(4);
    const doctor = await runCli(["doctor", "--json"], { env });
    expect(doctor.stderr).toBe("");
    const configFails = JSON.parse(doctor.stdout).findings.filter((f: { check: string }) => f.check === "config");
    expect(configFails).toHaveLength(4);
  });
});

describe("rta doctor's roots", () => {
  test("each root says where it came from, and the fix is said where it was named", async () => {
    const gone = join(tempDir(), "gone");
    const alsoGone = join(tempDir(), "also-gone");
    const here = tempDir();
    const { env, config } = dirsWith(`roots = ["${alsoGone}", "${here}"]\n`);
    const r = await runCli(["doctor", "--json", "--root", gone], { env });
    const roots = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === "root");
    expect(roots).toEqual([
      {
        check: "root",
        status: "fail",
        detail: `${gone} (from --root) cannot be read`,
        fix: "it does not exist; create it, or drop that --root",
        source: "--root",
      },
      {
        check: "root",
        status: "fail",
        detail: `${alsoGone} (from roots in ${join(config, "config.toml")}) cannot be read`,
        fix: `it does not exist; create it, or take it out of roots in ${join(config, "config.toml")}`,
        source: "config",
      },
      {
        check: "root",
        status: "ok",
        detail: `${here} (from roots in ${join(config, "config.toml")})`,
        source: "config",
      },
    ]);
    expect(r.stdout).not.toContain('drop that --root","source":"config');
  });

  test("with neither, the current directory is the root, as a note", async () => {
    const r = await runCli(["doctor", "--json"], { env: dirsWith().env });
    const roots = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === "root");
    expect(roots).toEqual([
      expect.objectContaining({
        status: "note",
        detail: `${process.cwd()} (the current directory: no --root and no roots in config)`,
        source: "default",
      }),
    ]);
  });

  test("piped, each finding is one tab-separated line; on a terminal, marks and fixes", async () => {
    const { env } = dirsWith();
    const piped = await runCli(["doctor"], { env });
    for (const line of piped.stdout.replace(/\n$/, "").split("\n")) expect(line.split("\t")).toHaveLength(4);
    expect(piped.stdout).toContain(`note\troot\t${process.cwd()} (the current directory`);
    const screen = await runCli(["doctor"], { env: { ...env, NO_COLOR: "1" }, tty: true });
    expect(screen.stdout).toContain("note  root: ");
    expect(screen.stdout).toContain("      fix: a server started here serves this directory");
  });
});

describe("rta config's output forms", () => {
  test("piped: path is the path, show is key<TAB>value lines, check is its lines; --json is JSON anywhere", async () => {
    const { env, config } = dirsWith('roots = ["/srv"]\n[defaults."proc.list"]\nlimit = 5\n');
    expect((await runCli(["config", "path"], { env })).stdout).toBe(`${join(config, "config.toml")}\n`);
    expect(JSON.parse((await runCli(["config", "path", "--json"], { env })).stdout).config_dir).toBe(config);
    const show = await runCli(["config", "show"], { env });
    expect(show.stdout.split("\n")).toEqual([
      "roots\t/srv",
      "hardlinks\tfalse",
      "defaults.proc.list.limit\t5",
      "connections\t",
      "profiles\t",
      "",
    ]);
    expect(JSON.parse((await runCli(["config", "show", "--json"], { env })).stdout).roots).toEqual(["/srv"]);
    expect((await runCli(["config", "check"], { env })).stdout).toBe(`${join(config, "config.toml")}: fine\n`);
    const pretty = await runCli(["config", "check", "--json"], { env, tty: true });
    expect(pretty.stdout).toBe(
      `${JSON.stringify({ file: join(config, "config.toml"), problems: [], exists: true }, null, 2)}\n`,
    );
  });
});
