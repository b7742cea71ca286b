/**
 * End to end: what a person who has never seen rta meets following README.md
 * and docs/secrets.md word for word, on the built binary: a key added in
 * `rta kv edit` needs no time written by hand, since the edit stamps it; the
 * page's age CLI write works on a new store; a value typed after the name is
 * told where it goes; `rta doctor` looks at the identity; README's
 * `>> "$(rta config path)"` lands on a fresh install; offline, a read that
 * leaves the machine names the line of config that points it at a mirror;
 * the help says what each command group holds.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RTA, rta } from "../support/rta.ts";
import { startStandIn } from "../support/standIn.ts";

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

/** A base URL where nothing answers: a stand-in's, stopped. */
async function deadUrl(): Promise<string> {
  const down = startStandIn({});
  await down.stop();
  return down.url;
}

describe("README's first setting, on a fresh install", () => {
  test('printf ... >> "$(rta config path)" lands: the config dir is made, 0700, and the setting reads', async () => {
    const home = tempDir();
    const env = { HOME: home, RTA_CONFIG_DIR: join(home, "fresh", "rta") };
    const r = await rta(["config", "path"], { env });
    expect(r.stdout).toBe(`${join(env.RTA_CONFIG_DIR, "config.toml")}\n`);
    expect(statSync(env.RTA_CONFIG_DIR).mode & 0o777).toBe(0o700);
    const sh = Bun.spawnSync(
      ["sh", "-c", `printf '[defaults.eol]\\napi_url = "http://127.0.0.1:9"\\n' >> "$(${RTA} config path)"`],
      { env: { ...env, PATH: process.env.PATH ?? "" } },
    );
    expect(sh.stderr.toString()).toBe("");
    expect(readFileSync(join(env.RTA_CONFIG_DIR, "config.toml"), "utf8")).toContain("[defaults.eol]");
    expect((await rta(["config", "check"], { env })).code).toBe(0);
  });
});

describe("offline, a read that leaves the machine says which line of config points it at a mirror", () => {
  test("rta config check says a base URL every call would refuse, once for the area's table", async () => {
    const config = tempDir();
    writeFileSync(join(config, "config.toml"), '[defaults.eol]\napi_url = "ftp://mirror.internal"\n');
    const env = { RTA_CONFIG_DIR: config };
    const checked = await rta(["config", "check"], { env });
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe(
      `${join(config, "config.toml")} [defaults."eol"]: api_url "ftp://mirror.internal" is not an http(s) base URL\n`,
    );
    expect((await rta(["eol", "products"], { env })).stderr).toContain("(offsite.url)");
  });

  test("eol check: api_url under [defaults.eol]", async () => {
    const config = tempDir();
    writeFileSync(join(config, "config.toml"), `[defaults.eol]\napi_url = "${await deadUrl()}"\n`);
    const r = await rta(["eol", "check", "nodejs", "20.11.1"], { env: { RTA_CONFIG_DIR: config } });
    expect(r.code).toBe(4);
    expect(r.stderr).toEndWith(
      "(offsite.unreachable)\nrta: hint: rta may be offline: check the network, or set api_url under [defaults.eol] in config.toml to a mirror that answers\n",
    );
  });

  test("audit kube eol: api_url under [defaults.audit], which is what its card and --help name too", async () => {
    const kube = join(import.meta.dir, "..", "fixtures", "kube");
    const kubectl = join(tempDir(), "kubectl");
    writeFileSync(kubectl, `#!/bin/sh\nexec '${join(kube, "kubectl.sh")}' '${join(kube, "faulty")}' "$@"\n`);
    chmodSync(kubectl, 0o755);
    const config = tempDir();
    writeFileSync(
      join(config, "config.toml"),
      `[defaults.audit]\nkubectl = "${kubectl}"\napi_url = "${await deadUrl()}"\n`,
    );
    const env = { RTA_CONFIG_DIR: config };
    const r = await rta(["audit", "kube", "eol"], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("set api_url under [defaults.audit] in config.toml to a mirror that answers\n");
    // [defaults.eol] does not reach an audit: the card once said it did
    const card = (await rta(["explain", "audit.kube.eol"], { env })).stdout;
    expect(card).toContain("([defaults.audit] api_url)");
    expect(card).not.toContain("[defaults.eol]");
  });

  test("audit deps: the dependencies are listed with no id, in words a person reads", async () => {
    const proj = tempDir();
    writeFileSync(join(proj, "requirements.txt"), "requests==2.19.0\n");
    const config = tempDir();
    writeFileSync(join(config, "config.toml"), `[defaults.audit]\nosv_url = "${await deadUrl()}"\n`);
    const r = await rta(["audit", "deps", proj], { env: { RTA_CONFIG_DIR: config } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("no vulnerability was checked, and the dependency found is listed with no id\n");
    expect(r.stderr).not.toContain("null");
  });
});

describe("the help of a command group says what it holds", () => {
  test("rta --help, rta audit --help: what each group is about and its commands, never 'X capabilities'", async () => {
    const top = (await rta(["--help"])).stdout.replace(/\s+/g, " ");
    expect(top).toContain("eol end-of-life dates, from endoflife.date: check, products, watch");
    expect(top).toContain("audit security audits: deps, kube, mail, web");
    expect(top).not.toMatch(/\b(audit|eol|fs|kv) capabilities\b/);
    const audit = (await rta(["audit", "--help"])).stdout.replace(/\s+/g, " ");
    expect(audit).toContain(
      "kube audit the Kubernetes cluster of kubectl's current context: eol, netpol, podsecurity, quotas, rbac",
    );
    // the person's verbs beside a capability's are named too
    expect((await rta(["kv", "--help"])).stdout).toContain("the secret store: copy, edit, get,");
  });

  test("rta explain audit.kube, the group the help names, lists its capabilities as an area does", async () => {
    const r = await rta(["explain", "audit.kube"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").map((l) => l.split("\t")[0])).toEqual([
      "audit.kube.eol",
      "audit.kube.netpol",
      "audit.kube.podsecurity",
      "audit.kube.quotas",
      "audit.kube.rbac",
      "",
    ]);
  });
});
