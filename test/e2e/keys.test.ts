/**
 * End to end: the keys capabilities on the built binary, checked against the
 * age CLI: keys.new writes what age-keygen writes, 0600 from the start, and
 * never over an identity; add-recipient re-encrypts the store so `age -d`
 * with the other identity opens it, and remove-recipient so it no longer
 * does; over MCP the keys tools name the identity as an agent is shown it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { noStack, rta } from "../support/rta.ts";

const SECRET = /AGE-SECRET-KEY-1[0-9A-Z]+/;

/** A data and config dir of their own, and the identity's place by default. */
function places() {
  const data = tempDir();
  const config = tempDir();
  return { data, config, identity: join(config, "identity.txt"), env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

function ageKeygen(file: string): string {
  const r = Bun.spawnSync(["age-keygen", "-o", file]);
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return publicOf(file);
}

function publicOf(identityFile: string): string {
  return Bun.spawnSync(["age-keygen", "-y", identityFile]).stdout.toString().trim();
}

/** `age -d -i identity file`: its plaintext, or null when it does not open. */
function ageDecrypt(identity: string, file: string): string | null {
  const r = Bun.spawnSync(["age", "-d", "-i", identity, file]);
  return r.exitCode === 0 ? r.stdout.toString() : null;
}

/** A store the age CLI encrypted to `recipient`, holding one key. */
function storeFor(data: string, recipient: string): void {
  const plain = join(tempDir(), "plain.txt");
  writeFileSync(
    plain,
    '# rta kv 1\n{"name":"deploy-key","value":"s3cr3t-v4lue","comment":"ci","modified":"2026-12-01T14:00:00.000Z"}\n',
  );
  const r = Bun.spawnSync(["age", "-r", recipient, "-o", join(data, "kv.age"), plain]);
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
}

describe("keys new and keys list", () => {
  test("keys new writes age-keygen's format, 0600, and answers only the public recipient", async () => {
    const p = places();
    const r = await rta(["keys", "new", "--json"], { env: p.env });
    expect(r.code).toBe(0);
    const made = JSON.parse(r.stdout).value;
    expect(made.identity).toBe(p.identity);
    expect(r.stdout + r.stderr).not.toMatch(SECRET);
    expect(statSync(p.identity).mode & 0o777).toBe(0o600);
    const lines = readFileSync(p.identity, "utf8").split("\n");
    expect(lines[0]).toMatch(/^# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(lines[1]).toBe(`# public key: ${made.recipient}`);
    expect(lines[2]).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]+$/);
    expect(lines.slice(3)).toEqual([""]);
    expect(publicOf(p.identity)).toBe(made.recipient);
  });

  test("keys new never replaces an identity: keys.exists, the file unchanged", async () => {
    const p = places();
    const recipient = ageKeygen(p.identity);
    const before = readFileSync(p.identity, "utf8");
    const r = await rta(["keys", "new"], { env: p.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rta: error: an identity is already at ${p.identity} (keys.exists)`);
    expect(noStack(r.stderr)).toBe(true);
    expect(readFileSync(p.identity, "utf8")).toBe(before);
    const listed = await rta(["keys", "list", "--json"], { env: p.env });
    expect(JSON.parse(listed.stdout).value.recipients).toEqual([recipient]);
  });

  test("RTA_KV_IDENTITY names where: a missing folder is made 0700, the file 0600, whatever the umask", async () => {
    const p = places();
    const id = join(tempDir(), "deep er", "ops.txt");
    const r = Bun.spawnSync(["sh", "-c", 'umask 000; exec "$0" keys new', join(import.meta.dir, "../../dist/rta")], {
      env: { ...p.env, PATH: process.env.PATH ?? "", RTA_KV_IDENTITY: id },
    });
    expect(r.exitCode).toBe(0);
    expect(statSync(id).mode & 0o777).toBe(0o600);
    expect(statSync(join(id, "..")).mode & 0o777).toBe(0o700);
  });

  test("keys list without an identity says so, and where it would be", async () => {
    const p = places();
    const r = await rta(["keys", "list", "--json"], { env: p.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).value).toEqual({ identity: p.identity, exists: false, recipients: [] });
  });

  test("keys list refuses an identity others may read, with the chmod", async () => {
    const p = places();
    ageKeygen(p.identity);
    Bun.spawnSync(["chmod", "644", p.identity]);
    const r = await rta(["keys", "list"], { env: p.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("(kv.identity.mode)");
    expect(r.stderr).toContain(`rta: hint: narrow it to its owner: chmod 600 ${p.identity}`);
  });
});

describe("keys recipients, add-recipient and remove-recipient", () => {
  test("add-recipient re-encrypts the store so age -d with the other identity opens it; remove takes it back", async () => {
    const p = places();
    const mine = ageKeygen(p.identity);
    storeFor(p.data, mine);
    const other = join(tempDir(), "other.txt");
    const theirs = ageKeygen(other);
    expect(ageDecrypt(other, join(p.data, "kv.age"))).toBeNull();

    const added = await rta(["keys", "add-recipient", theirs, "--json"], { env: p.env });
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).value).toEqual({ recipient: theirs, added: true, recipients: [mine, theirs] });
    const opened = ageDecrypt(other, join(p.data, "kv.age"));
    expect(opened).toContain('"name":"deploy-key","value":"s3cr3t-v4lue"');
    expect(ageDecrypt(p.identity, join(p.data, "kv.age"))).toBe(opened);
    expect(readFileSync(join(p.data, "kv.recipients"), "utf8")).toContain(`${mine}\n${theirs}\n`);

    const listed = await rta(["keys", "recipients"], { env: p.env });
    expect(listed.stdout).toBe(`${mine}\ttrue\n${theirs}\tfalse\n`);

    const again = await rta(["keys", "add-recipient", theirs, "--json"], { env: p.env });
    expect(JSON.parse(again.stdout).value.added).toBe(false);

    const removed = await rta(["keys", "remove-recipient", theirs, "--json"], { env: p.env });
    expect(removed.code).toBe(0);
    const said = JSON.parse(removed.stdout).value;
    expect(said.recipients).toEqual([mine]);
    expect(said.note).toContain("a copy taken before (kv.age.bak until the next write, any backup) still opens");
    expect(ageDecrypt(other, join(p.data, "kv.age"))).toBeNull();
    expect(ageDecrypt(p.identity, join(p.data, "kv.age"))).toContain("s3cr3t-v4lue");
  });

  test("remove-recipient refuses this identity's own, the last one and one not there", async () => {
    const p = places();
    const mine = ageKeygen(p.identity);
    storeFor(p.data, mine);
    const last = await rta(["keys", "remove-recipient", mine], { env: p.env });
    expect(last.code).toBe(3);
    expect(last.stderr).toContain("is the kv store's only recipient: nobody could open it (keys.recipient.kept)");
    const theirs = ageKeygen(join(tempDir(), "o.txt"));
    await rta(["keys", "add-recipient", theirs], { env: p.env });
    const own = await rta(["keys", "remove-recipient", mine], { env: p.env });
    expect(own.code).toBe(3);
    expect(own.stderr).toContain("is this identity's own recipient: rta here could no longer open the kv store");
    expect(own.stderr).toContain("rta keys import FILE --force");
    const gone = await rta(["keys", "remove-recipient", ageKeygen(join(tempDir(), "n.txt"))], { env: p.env });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain("(keys.recipient.notfound)");
    expect(ageDecrypt(p.identity, join(p.data, "kv.age"))).toContain("s3cr3t-v4lue");
  });

  test("a recipient that is none is refused without being repeated; a secret key given as one is named as such", async () => {
    const p = places();
    ageKeygen(p.identity);
    const bad = await rta(["keys", "add-recipient", "age1nope\u001b[31m"], { env: p.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("(core.input.invalid)");
    expect(bad.stderr).not.toContain("\u001b");
    const key = readFileSync(p.identity, "utf8").match(SECRET)?.[0] as string;
    const secret = await rta(["keys", "add-recipient", key], { env: p.env });
    expect(secret.stderr).toContain("recipient is a secret key, not a recipient");
    expect(secret.stderr).not.toContain(key);
    expect(existsSync(join(p.data, "kv.recipients"))).toBe(false);
  });

  test("add-recipient before any store makes one, encrypted to both", async () => {
    const p = places();
    ageKeygen(p.identity);
    const other = join(tempDir(), "other.txt");
    const r = await rta(["keys", "add-recipient", ageKeygen(other)], { env: p.env });
    expect(r.code).toBe(0);
    expect(ageDecrypt(other, join(p.data, "kv.age"))).toBe("# rta kv 1\n");
  });
});

describe("docs/secrets.md", () => {
  test("the page's plaintext example is byte for byte what rta writes for it", async () => {
    const page = readFileSync(join(import.meta.dir, "../../docs/secrets.md"), "utf8");
    const example = page.split("<!-- kv-plaintext -->\n```text\n")[1]?.split("```")[0] as string;
    expect(example.startsWith("# rta kv 1\n")).toBe(true);
    const p = places();
    const mine = ageKeygen(p.identity);
    const plain = join(tempDir(), "plain.txt");
    writeFileSync(plain, example);
    Bun.spawnSync(["age", "-r", mine, "-o", join(p.data, "kv.age"), plain]);
    // a change of recipients makes rta write the store again, from what it read
    const other = ageKeygen(join(tempDir(), "other.txt"));
    expect((await rta(["keys", "add-recipient", other], { env: p.env })).code).toBe(0);
    expect(ageDecrypt(p.identity, join(p.data, "kv.age"))).toBe(example);
  });
});

describe("the keys tools over MCP", () => {
  test("keys_list and keys_recipients name the identity and store as an agent is shown them; keys_new needs a grant", async () => {
    const p = places();
    const id = join(tempDir(), "ops.txt");
    const recipient = ageKeygen(id);
    mkdirSync(p.data, { recursive: true });
    const s = await connect("modern", ["--agent", "claude"], {
      dataDir: p.data,
      env: { ...p.env, RTA_KV_IDENTITY: id },
    });
    try {
      const listed = resultJson(await s.client.callTool({ name: "keys_list", arguments: {} }));
      expect(listed).toEqual({
        type: "object",
        value: { identity: "<identity file>", exists: true, recipients: [recipient] },
      });
      const recipients = resultJson(await s.client.callTool({ name: "keys_recipients", arguments: {} }));
      expect(recipients.rows).toEqual([[recipient, true]]);
      const made = resultJson(await s.client.callTool({ name: "keys_new", arguments: {} }));
      expect(made.code).toBe("core.grant.required");
    } finally {
      await s.close();
    }
  });

  test("with --kv and without RTA_KV_IDENTITY an agent is told <config dir>/identity.txt", async () => {
    const p = places();
    const s = await connect("legacy", ["--agent", "claude", "--kv"], { dataDir: p.data, env: p.env });
    try {
      const listed = resultJson(await s.client.callTool({ name: "keys_list", arguments: {} }));
      expect(listed.value).toEqual({ identity: "<config dir>/identity.txt", exists: false, recipients: [] });
    } finally {
      await s.close();
    }
  });

  test("without either, keys_new makes no identity in the config dir: the server has none to make", async () => {
    const p = places();
    const s = await connect("modern", ["--agent", "claude"], { dataDir: p.data, env: p.env });
    try {
      expect((await rta(["grant", "allow", "keys.new", "--agent", "claude", "--ttl", "5m"], { env: p.env })).code).toBe(
        0,
      );
      const made = resultJson(await s.client.callTool({ name: "keys_new", arguments: {} }));
      expect(made.code).toBe("kv.locked");
      expect(String(made.hint)).toContain("rta mcp serve --kv");
      expect(existsSync(p.identity)).toBe(false);
    } finally {
      await s.close();
    }
  });
});
