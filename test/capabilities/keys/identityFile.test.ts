import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { identityToRecipient } from "age-encryption";
import { checkRecipient, installIdentity, newIdentity } from "../../../src/capabilities/keys/identityFile.ts";
import { RtaError } from "../../../src/core/errors.ts";
import { refusalOf, tempDir } from "../../support/fixtures.ts";

async function refused(act: () => Promise<unknown>): Promise<RtaError> {
  try {
    await act();
  } catch (err) {
    if (err instanceof RtaError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("the identity file", () => {
  test("newIdentity is age-keygen's three lines, its recipient the key's", async () => {
    const made = await newIdentity(Date.parse("2026-12-01T14:00:00.123Z"));
    const [created, pub, key, end] = made.text.split("\n");
    expect(created).toBe("# created: 2026-12-01T14:00:00Z");
    expect(pub).toBe(`# public key: ${made.recipient}`);
    expect(await identityToRecipient(key as string)).toBe(made.recipient);
    expect(end).toBe("");
  });

  test("installIdentity writes 0600, links without replacing, and leaves no temporary file", async () => {
    const dir = join(tempDir(), "new");
    const path = join(dir, "identity.txt");
    await installIdentity(path, "one\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const again = await refused(() => installIdentity(path, "two\n"));
    expect(again.code).toBe("keys.exists");
    expect(readFileSync(path, "utf8")).toBe("one\n");
    await installIdentity(path, "three\n", { replace: true });
    expect(readFileSync(path, "utf8")).toBe("three\n");
    expect(readdirSync(dir)).toEqual(["identity.txt"]);
  });

  test("a check that refuses leaves nothing behind and the old file as it was", async () => {
    const dir = tempDir();
    const path = join(dir, "identity.txt");
    writeFileSync(path, "old\n", { mode: 0o600 });
    const err = await refused(() =>
      installIdentity(path, "new\n", {
        replace: true,
        check: async () => {
          throw new RtaError("kv.identity.format", "no", "no");
        },
      }),
    );
    expect(err.code).toBe("kv.identity.format");
    expect(readFileSync(path, "utf8")).toBe("old\n");
    expect(readdirSync(dir)).toEqual(["identity.txt"]);
  });

  test("a folder that is a file is fs.notdir, with the way on", async () => {
    const file = join(tempDir(), "f");
    writeFileSync(file, "");
    const err = await refused(() => installIdentity(join(file, "identity.txt"), "x\n"));
    expect(err.code).toBe("fs.notdir");
    expect(existsSync(join(file, "identity.txt"))).toBe(false);
  });
});

describe("checkRecipient", () => {
  test("takes an X25519 recipient, trimmed; refuses a bad checksum, another kind and a secret key", async () => {
    const made = await newIdentity(0);
    expect(checkRecipient(` ${made.recipient}\n`)).toBe(made.recipient);
    const flipped = `${made.recipient.slice(0, -1)}${made.recipient.endsWith("q") ? "p" : "q"}`;
    expect(refusalOf(() => checkRecipient(flipped)).code).toBe("core.input.invalid");
    expect(refusalOf(() => checkRecipient("ssh-ed25519 AAAA")).code).toBe("core.input.invalid");
    const key = made.text.split("\n")[2] as string;
    const secret = refusalOf(() => checkRecipient(key));
    expect(secret.message).toBe("recipient is a secret key, not a recipient");
    expect(`${secret.message}${secret.hint}`).not.toContain(key);
  });
});
