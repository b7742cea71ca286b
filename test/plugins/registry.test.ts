import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RtaError } from "../../src/core/errors.ts";
import { fileDigest, rememberDigest } from "../../src/plugins/digest.ts";
import { pluginsDir, readIndex, updateIndex, writeIndex } from "../../src/plugins/registry.ts";

const SHA = "a".repeat(64);

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), "rta-registry-"));
}

describe("the index of installed plugins", () => {
  test("is empty before anything is installed, and reads back what was written", () => {
    const dir = dataDir();
    expect(readIndex(dir)).toEqual({ version: 1, plugins: {} });
    const entry = { version: "1.0.0", sha256: SHA, installed: "2026-01-01T00:00:00Z", described: { name: "demo" } };
    writeIndex(dir, { version: 1, plugins: { demo: entry } });
    expect(readIndex(dir).plugins.demo).toEqual(entry);
    expect(statSync(pluginsDir(dir)).mode & 0o777).toBe(0o700);
    // the temporary file was renamed, not left behind
    expect(readdirSync(pluginsDir(dir))).toEqual(["index.json"]);
  });

  const refused: [string, string, RegExp][] = [
    ["torn", '{"version":1,"plugins":{"demo":{"vers', /not JSON/],
    ["another version", '{"version":2,"plugins":{}}', /version is 2/],
    ["an array", "[]", /not a JSON object/],
    ["a bad name", `{"version":1,"plugins":{"../x":{}}}`, /names a plugin/],
    ["a malformed entry", `{"version":1,"plugins":{"demo":{"version":"1","sha256":"xyz"}}}`, /entry for demo/],
  ];
  for (const [what, text, why] of refused) {
    test(`refuses an index that is ${what}, never taking it as empty`, () => {
      const dir = dataDir();
      mkdirSync(pluginsDir(dir), { recursive: true });
      writeFileSync(join(pluginsDir(dir), "index.json"), text);
      let err: unknown;
      try {
        readIndex(dir);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RtaError);
      expect((err as RtaError).code).toBe("core.plugin.index");
      expect((err as RtaError).message).toMatch(why);
      expect((err as RtaError).hint).toContain("rta pkg install");
    });
  }
});

describe("a change of the index", () => {
  test("is made under a lock, taken over from a process that is gone, and left unlocked", () => {
    const dir = dataDir();
    mkdirSync(pluginsDir(dir), { recursive: true });
    // a pid no process has: the lock of an rta that was killed mid-change
    writeFileSync(join(pluginsDir(dir), "index.lock"), "4194304999");
    const entry = { version: "1", sha256: SHA, installed: "2026-01-01T00:00:00Z", described: {} };
    const got = updateIndex(dir, (index) => {
      index.plugins.demo = entry;
      return "done";
    });
    expect(got).toBe("done");
    expect(readIndex(dir).plugins.demo).toEqual(entry);
    expect(readdirSync(pluginsDir(dir))).toEqual(["index.json"]);
  });
});

describe("a binary's digest", () => {
  test("is its sha256, kept while the file is untouched and taken again when it changes", () => {
    const file = join(dataDir(), "bin");
    writeFileSync(file, "one");
    const first = fileDigest(file);
    expect(first.sha256).toBe(new Bun.CryptoHasher("sha256").update("one").digest("hex"));
    expect(fileDigest(file)).toBe(first);
    appendFileSync(file, "two");
    expect(fileDigest(file).sha256).toBe(new Bun.CryptoHasher("sha256").update("onetwo").digest("hex"));
  });

  test("is taken again when the bytes change but the size and mtime are put back (the ctime moves)", () => {
    const file = join(dataDir(), "bin");
    writeFileSync(file, "aaaa");
    const st = statSync(file);
    const first = fileDigest(file);
    writeFileSync(file, "bbbb");
    utimesSync(file, st.atime, st.mtime);
    expect(fileDigest(file).sha256).not.toBe(first.sha256);
  });

  test("a remembered digest is used only while the identity it names still holds", () => {
    const file = join(dataDir(), "bin");
    writeFileSync(file, "real");
    rememberDigest(file, { sha256: SHA, identity: "0:0:0:0:0" });
    expect(fileDigest(file).sha256).not.toBe(SHA);
    const now = fileDigest(file);
    rememberDigest(file, { sha256: SHA, identity: now.identity });
    expect(fileDigest(file).sha256).toBe(SHA);
  });
});
