import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Decrypter, Encrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import { formatStore, parseStore } from "../../../src/capabilities/kv/format.ts";
import {
  type KvPlaces,
  kvPlaces,
  loadIdentities,
  readRecipients,
  readStore,
  updateStore,
} from "../../../src/capabilities/kv/store.ts";
import { RtaError } from "../../../src/core/errors.ts";
import { tempDir } from "../../support/fixtures.ts";

async function newStore(): Promise<{ p: KvPlaces; key: string; recipient: string }> {
  const dir = tempDir("rta-kv-");
  const key = await generateX25519Identity();
  const identity = join(dir, "identity.txt");
  writeFileSync(identity, `# created: by a test\n${key}\n`, { mode: 0o600 });
  return { p: kvPlaces(join(dir, "data"), identity), key, recipient: await identityToRecipient(key) };
}

async function refusal(act: () => Promise<unknown>): Promise<RtaError> {
  try {
    await act();
  } catch (err) {
    if (err instanceof RtaError) return err;
    throw err;
  }
  throw new Error("it was not refused");
}

const at = "2026-12-01T14:00:00.000Z";

describe("the kv store", () => {
  test("a store not made yet is empty; a write makes it, in age, in the documented plaintext", async () => {
    const { p, key } = await newStore();
    expect((await readStore(p)).size).toBe(0);
    await updateStore(p, (m) => {
      m.set("zeta", { name: "zeta", value: "z\nline", modified: at });
      m.set("deploy-key", { name: "deploy-key", value: "s3cret", comment: "prod", modified: at });
    });
    const bytes = readFileSync(p.file);
    expect(bytes.subarray(0, 22).toString()).toBe("age-encryption.org/v1\n");
    expect(statSync(p.file).mode & 0o777).toBe(0o600);
    const d = new Decrypter();
    d.addIdentity(key);
    expect(await d.decrypt(new Uint8Array(bytes), "text")).toBe(
      `# rta kv 1\n{"name":"deploy-key","value":"s3cret","comment":"prod","modified":"${at}"}\n` +
        `{"name":"zeta","value":"z\\nline","modified":"${at}"}\n`,
    );
    const back = await readStore(p);
    expect(back.get("deploy-key")?.value).toBe("s3cret");
    expect(back.get("zeta")?.value).toBe("z\nline");
  });

  test("each write keeps the version it replaced as kv.age.bak, and leaves no temp file", async () => {
    const { p } = await newStore();
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "1", modified: at }));
    const first = readFileSync(p.file);
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "2", modified: at }));
    expect(readFileSync(`${p.file}.bak`)).toEqual(first);
    expect(readdirSync(join(p.file, "..")).sort()).toEqual(["kv.age", "kv.age.bak"]);
  });

  test("kv.age and kv.age.bak are 0600 after a write, whatever mode the replaced file had", async () => {
    const { p } = await newStore();
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "1", modified: at }));
    const first = readFileSync(p.file);
    // as the age CLI leaves it under umask 022
    chmodSync(p.file, 0o644);
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "2", modified: at }));
    expect(readFileSync(`${p.file}.bak`)).toEqual(first);
    expect(statSync(`${p.file}.bak`).mode & 0o777).toBe(0o600);
    expect(statSync(p.file).mode & 0o777).toBe(0o600);
  });

  test("a file encrypted outside rta is read; a change under the cache's feet is seen", async () => {
    const { p, recipient } = await newStore();
    await updateStore(p, () => {});
    expect((await readStore(p)).size).toBe(0);
    const e = new Encrypter();
    e.addRecipient(recipient);
    writeFileSync(p.file, await e.encrypt(`# rta kv 1\n{"name":"x","value":"by hand","modified":"${at}"}\n`));
    expect((await readStore(p)).get("x")?.value).toBe("by hand");
  });

  test("what readStore hands out is a copy: changing it changes nothing stored", async () => {
    const { p } = await newStore();
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "1", modified: at }));
    (await readStore(p)).delete("a");
    expect((await readStore(p)).has("a")).toBe(true);
  });

  test("writes from one process at once are all kept", async () => {
    const { p } = await newStore();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        updateStore(p, (m) => void m.set(`k${i}`, { name: `k${i}`, value: String(i), modified: at })),
      ),
    );
    expect((await readStore(p)).size).toBe(20);
  });

  test("a change that throws writes nothing, and the next write goes through", async () => {
    const { p } = await newStore();
    const err = await refusal(() =>
      updateStore(p, () => {
        throw new RtaError("kv.notfound", "no such key");
      }),
    );
    expect(err.code).toBe("kv.notfound");
    expect(existsSync(p.file)).toBe(false);
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "1", modified: at }));
    expect((await readStore(p)).size).toBe(1);
  });

  test("without an identity a store is locked, with the fix; none made yet is empty", async () => {
    const { p } = await newStore();
    const none = { ...p, identity: join(p.file, "..", "none.txt") };
    expect((await readStore(none)).size).toBe(0);
    expect((await refusal(() => updateStore(none, () => {}))).code).toBe("kv.locked");
    await updateStore(p, () => {});
    const err = await refusal(() => readStore(none));
    expect(err.code).toBe("kv.locked");
    expect(err.hint).toContain("rta keys new");
    expect(err.hint).toContain("--kv");
  });

  test("an identity others may read is refused with the chmod, as root too", async () => {
    const { p } = await newStore();
    await updateStore(p, () => {});
    chmodSync(p.identity, 0o640);
    const err = await refusal(() => readStore(p));
    expect(err.code).toBe("kv.identity.mode");
    expect(err.message).toContain("0640");
    expect(err.hint).toBe(`narrow it to its owner: chmod 600 ${p.identity}`);
  });

  test("an identity file with a line that is no key is refused by line number, never its text", async () => {
    const { p, key } = await newStore();
    writeFileSync(p.identity, `# a comment\n${key}x-y\n`);
    const err = await refusal(() => loadIdentities(p.identity));
    expect(err.code).toBe("kv.identity.format");
    expect(err.message).toContain("line 2");
    expect(err.message).not.toContain(key);
  });

  test("a store for other recipients does not open, and says so", async () => {
    const { p } = await newStore();
    const e = new Encrypter();
    e.addRecipient(await identityToRecipient(await generateX25519Identity()));
    await updateStore(p, () => {});
    writeFileSync(p.file, await e.encrypt("# rta kv 1\n"));
    expect((await refusal(() => readStore(p))).code).toBe("kv.decrypt");
    writeFileSync(p.file, "not age at all");
    expect((await refusal(() => readStore(p))).code).toBe("kv.format");
  });

  test("recipients: the identity's own without a file; a list given becomes the file", async () => {
    const { p, recipient } = await newStore();
    expect(await readRecipients(p)).toEqual([recipient]);
    const other = await generateX25519Identity();
    const both = [recipient, await identityToRecipient(other)];
    await updateStore(p, (m) => void m.set("a", { name: "a", value: "1", modified: at }), both);
    expect(await readRecipients(p)).toEqual(both);
    const d = new Decrypter();
    d.addIdentity(other);
    expect(await d.decrypt(new Uint8Array(readFileSync(p.file)), "text")).toContain('"value":"1"');
    const err = await refusal(() => updateStore(p, () => {}, [both[1] as string]));
    expect(err.code).toBe("kv.recipients");
    expect((await refusal(() => updateStore(p, () => {}, ["age1nope"]))).code).toBe("kv.recipients");
  });
});

describe("the plaintext format", () => {
  test("a line that is not rta's is refused by its number, never its text", () => {
    const bad = [
      "",
      "# rta kv 2\n",
      `# rta kv 1\n{"name":"a","value":"SECRETVALUE","modified":"${at}","extra":1}\n`,
      // a value typed where a field's name goes
      `# rta kv 1\n{"name":"a","value":"","SECRETVALUE":"","modified":"${at}"}\n`,
      `# rta kv 1\n{"name":"../a","value":"SECRETVALUE","modified":"${at}"}\n`,
      `# rta kv 1\n{"name":"a","value":"SECRETVALUE","modified":"yesterday"}\n`,
      "# rta kv 1\nSECRETVALUE\n",
      `# rta kv 1\n{"name":"a","value":"x","modified":"${at}"}\n{"name":"a","value":"SECRETVALUE","modified":"${at}"}\n`,
    ];
    for (const text of bad) {
      let err: RtaError | undefined;
      try {
        parseStore(text);
      } catch (e) {
        err = e as RtaError;
      }
      expect(err?.code).toBe("kv.format");
      expect(err?.message).not.toContain("SECRETVALUE");
      expect(err?.message).toMatch(/line \d/);
    }
  });

  test("a line without `modified` is refused in a store, and taken from a person's edit, which stamps it", () => {
    const text = '# rta kv 1\n{"name":"a","value":"SECRETVALUE"}\n';
    let err: RtaError | undefined;
    try {
      parseStore(text);
    } catch (e) {
      err = e as RtaError;
    }
    expect(err?.code).toBe("kv.format");
    expect(err?.message).toContain("line 2 does not read as rta's format: it has no `modified`");
    expect(parseStore(text, true).get("a")).toEqual({ name: "a", value: "SECRETVALUE", modified: "" });
  });

  test("written in name order, read back the same, in any order and with CRLF", () => {
    const m = parseStore(
      `# rta kv 1\r\n{"name":"b","value":"2","modified":"${at}"}\r\n{"name":"a","value":"1","modified":"${at}"}`,
    );
    expect(formatStore(m)).toBe(
      `# rta kv 1\n{"name":"a","value":"1","modified":"${at}"}\n{"name":"b","value":"2","modified":"${at}"}\n`,
    );
  });
});
