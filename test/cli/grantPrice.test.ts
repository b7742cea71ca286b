/**
 * `rta grant allow` says the grant's price before it is issued: what it would
 * cover, and at a terminal `issue it? [y/N]` for a destructive one. Piped,
 * stdout is the grant's id alone (with --json, the grant) and the price goes to stderr.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { runCli } from "../support/runCli.ts";

function dirsEnv() {
  return { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), NO_COLOR: "1" };
}

const allow = (target: string, ...more: string[]) => [
  "grant",
  "allow",
  target,
  "--agent",
  "claude",
  "--ttl",
  "5m",
  ...more,
];
const grants = async (env: Record<string, string>) =>
  JSON.parse((await runCli(["grant", "list", "--json"], { env })).stdout).grants as { target: string; id: string }[];

describe("the price of a grant", () => {
  test("at a terminal an area with a destructive capability is listed with each safety class and asked about", async () => {
    const env = dirsEnv();
    const yes = await runCli(allow("note"), { env, tty: true, stdin: "y\n" });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toMatch(
      /^a grant of note for agent claude would cover:\n( {2}note\.\w+ +(read|write|destructive)\n)+hosts: none \(it reaches no host\)\nuses: any number\ntime: 5m\nissue it\? \[y\/N\] granted g[0-9a-f]{8}: note /,
    );
    expect(yes.stdout).toMatch(/\n {2}note\.rm +destructive\n/);
    expect(yes.stdout).toMatch(/\n {2}note\.add +write\n/);
    expect(await grants(env)).toHaveLength(1);
  });

  test("anything but y or yes issues nothing, with core.grant.declined", async () => {
    const env = dirsEnv();
    for (const typed of ["n\n", "\n", "", "yep\n", "no\n"]) {
      const no = await runCli(allow("note.rm", "--max-uses", "1"), { env, tty: true, stdin: typed });
      expect(no.code).toBe(3);
      expect(no.stdout).toContain("issue it? [y/N] ");
      expect(no.stderr).toContain("(core.grant.declined)");
    }
    expect(await grants(env)).toEqual([]);
    expect((await runCli(allow("note.rm"), { env, tty: true, stdin: " YES \n" })).code).toBe(0);
  });

  test("--yes, or a grant with nothing destructive, is issued at a terminal without asking", async () => {
    const env = dirsEnv();
    const yes = await runCli(allow("note.rm", "--yes"), { env, tty: true });
    expect(yes.code).toBe(0);
    expect(yes.stdout).not.toContain("issue it?");
    const write = await runCli(allow("http.get", "--host", "status.example.com", "--max-uses", "2"), {
      env,
      tty: true,
    });
    expect(write.code).toBe(0);
    expect(write.stdout).toStartWith(
      "a grant of http.get for agent claude would cover:\n  http.get  read\nnarrowed to: host status.example.com\nhosts: status.example.com\nuses: 2\ntime: 5m\ngranted ",
    );
    expect(await grants(env)).toHaveLength(2);
  });

  test("a read that reveals a secret is priced as one, alone and within its area", async () => {
    const env = dirsEnv();
    const one = await runCli(allow("kv.get", "deploy-key", "--max-uses", "1"), { env });
    expect(one.stderr).toContain("\n  kv.get  read, reveals a stored secret's value\nnarrowed to: name deploy-key\n");
    const area = await runCli(allow("kv", "--yes"), { env });
    expect(area.stderr).toContain("\n  kv.get       read, reveals a stored secret's value\n  kv.list      read\n");
  });

  test("piped, it proceeds: stdout is the grant's id alone, --json the grant; the price is on stderr, unasked", async () => {
    // Issue 14 changed the piped stdout from the grant's JSON to its id: JSON only with --json, and a script
    // wants the id, for `rta grant revoke "$id"`. Issue 23 asked only that the price go to stderr piped.
    const env = dirsEnv();
    const piped = await runCli(allow("note"), { env });
    expect(piped.code).toBe(0);
    const [grant] = await grants(env);
    expect(piped.stdout).toBe(`${grant?.id}\n`);
    expect(piped.stderr).toStartWith("a grant of note for agent claude would cover:\n");
    expect(piped.stderr).toContain("  note.rm    destructive\n");
    expect(piped.stderr).not.toContain("issue it?");
    const json = await runCli(allow("note", "--json"), { env });
    const issued = (await grants(env))[1] as Record<string, unknown>;
    // as before, key for key, with times in ISO and the --args text last; the listing adds its state
    const order = ["target", "record", "agent", "connection", "profile", "host", "args_digest", "max_uses"];
    order.push("issued_at", "expires_at", "issued_by", "build", "digest", "id", "uses", "revoked_at", "args");
    expect(json.stdout).toBe(`${JSON.stringify(Object.fromEntries(order.map((k) => [k, issued[k]])))}\n`);
    expect(issued.expires_at).toBe("2023-11-14T22:18:20Z");
    expect(json.stderr).toStartWith("a grant of note for agent claude would cover:\n");
  });

  test("--json at a terminal keeps stdout the grant's JSON; the price and the question are on stderr", async () => {
    const env = dirsEnv();
    const json = await runCli(allow("note.rm", "--json"), { env, tty: true, stdin: "y\n" });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ target: "note.rm", agent: "claude" });
    expect(json.stdout).not.toContain("would cover");
    expect(json.stderr).toEndWith("time: 5m\nissue it? [y/N] ");
    const no = await runCli(allow("note.rm", "--json"), { env, tty: true, stdin: "n\n" });
    expect(no.code).toBe(3);
    expect(JSON.parse(no.stdout).code).toBe("core.grant.declined");
  });

  test("a request the gate refuses is refused before any price is said", async () => {
    const bad = await runCli(["grant", "allow", "note.rm", "--agent", "claude", "--ttl", "soon"], {
      env: dirsEnv(),
      tty: true,
    });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).not.toContain("would cover");
  });
});
