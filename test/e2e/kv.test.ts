/**
 * End to end: the kv store on the built binary from the command line: a round
 * trip with the age CLI both ways, two processes writing at once, a write
 * killed mid-way, the identity's mode, and a value never echoed.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

/** A data dir, a config dir and an identity made by age-keygen, as the env of a run. */
function kvHome(): { data: string; identity: string; recipient: string; env: Record<string, string> } {
  const data = tempDir();
  const config = tempDir();
  const identity = join(tempDir(), "id.txt");
  const made = Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error("age-keygen failed");
  const recipient = (made.stderr.toString().match(/age1[0-9a-z]+/) ?? [""])[0];
  return { data, identity, recipient, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, RTA_KV_IDENTITY: identity } };
}

function ageDecrypt(identity: string, file: string): { code: number; text: string } {
  const r = Bun.spawnSync(["age", "-d", "-i", identity, file], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, text: r.stdout.toString() };
}

describe("the age CLI, both ways", () => {
  test("what rta writes, age -d shows in the documented plaintext", async () => {
    const h = kvHome();
    expect(
      (await rta(["kv", "set", "deploy-key", "--comment", "CI deploy"], { stdin: "s3cret\n", env: h.env })).code,
    ).toBe(0);
    expect(
      (await rta(["kv", "set", "a/b"], { stdin: "-----BEGIN X-----\nabc\n-----END X-----\n", env: h.env })).code,
    ).toBe(0);
    const plain = ageDecrypt(h.identity, join(h.data, "kv.age"));
    expect(plain.code).toBe(0);
    const lines = plain.text.split("\n");
    expect(lines[0]).toBe("# rta kv 1");
    expect(lines[1]).toMatch(
      /^\{"name":"a\/b","value":"-----BEGIN X-----\\nabc\\n-----END X-----\\n","modified":"\d{4}-.+Z"\}$/,
    );
    expect(lines[2]).toMatch(/^\{"name":"deploy-key","value":"s3cret","comment":"CI deploy","modified":"\d{4}-.+Z"\}$/);
    expect(lines.slice(3)).toEqual([""]);
  });

  test("a plaintext written by hand and encrypted with age -r opens in rta", async () => {
    const h = kvHome();
    const plain = join(tempDir(), "plain.txt");
    writeFileSync(
      plain,
      '# rta kv 1\n{"name":"hand","value":"made by hand","comment":"typed","modified":"2026-12-01T14:00:00.000Z"}\n',
    );
    const enc = Bun.spawnSync(["age", "-r", h.recipient, "-o", join(h.data, "kv.age"), plain]);
    expect(enc.exitCode).toBe(0);
    const got = await rta(["kv", "get", "hand"], { env: h.env });
    expect(got).toEqual({ code: 0, stdout: "made by hand", stderr: "" });
    const listed = await rta(["kv", "list", "--json"], { env: h.env });
    expect(JSON.parse(listed.stdout).rows).toEqual([
      { name: "hand", comment: "typed", modified: "2026-12-01T14:00:00Z" },
    ]);
    // armored (age -a) too
    Bun.spawnSync(["age", "-a", "-r", h.recipient, "-o", join(h.data, "kv.age"), plain]);
    expect((await rta(["kv", "get", "hand"], { env: h.env })).stdout).toBe("made by hand");
  });

  test("a store the age CLI wrote 0644 (umask 022) is replaced 0600, and its backup kept 0600", async () => {
    const h = kvHome();
    const plain = join(tempDir(), "plain.txt");
    writeFileSync(plain, '# rta kv 1\n{"name":"hand","value":"v","modified":"2026-12-01T14:00:00.000Z"}\n');
    const file = join(h.data, "kv.age");
    const enc = Bun.spawnSync(["sh", "-c", 'umask 022 && exec age -r "$0" -o "$1" "$2"', h.recipient, file, plain]);
    expect(enc.exitCode).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect((await rta(["kv", "set", "other"], { stdin: "w", env: h.env })).code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.bak`).mode & 0o777).toBe(0o600);
    expect(ageDecrypt(h.identity, `${file}.bak`).text).toContain('"name":"hand"');
  });

  test("a hand-written line that is not rta's is refused by its number, never its text", async () => {
    const h = kvHome();
    const plain = join(tempDir(), "plain.txt");
    writeFileSync(plain, '# rta kv 1\n{"name":"a","value":"TOPSECRET-1","modified":"soon"}\n');
    Bun.spawnSync(["age", "-r", h.recipient, "-o", join(h.data, "kv.age"), plain]);
    const r = await rta(["kv", "list"], { env: h.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("line 2");
    expect(r.stderr).toContain("(kv.format)");
    expect(r.stderr).not.toContain("TOPSECRET");
  });
});

describe("writes", () => {
  test("two processes each running rta kv set 100 times lose no write", async () => {
    const h = kvHome();
    const writer = (who: string) =>
      Bun.spawn(
        [
          "sh",
          "-c",
          `i=0; while [ $i -lt 100 ]; do echo "v$i" | "$RTA" kv set "${who}/k$i" >/dev/null || exit 1; i=$((i+1)); done`,
        ],
        { env: { PATH: process.env.PATH ?? "", RTA, ...h.env }, stdout: "ignore", stderr: "pipe" },
      );
    const a = writer("a");
    const b = writer("b");
    expect([await a.exited, await b.exited]).toEqual([0, 0]);
    const listed = JSON.parse((await rta(["kv", "list", "--json"], { env: h.env })).stdout);
    expect(listed.total).toBe(200);
    expect((await rta(["kv", "get", "b/k99"], { env: h.env })).stdout).toBe("v99");
    expect(existsSync(join(h.data, "kv.age.lock"))).toBe(false);
  }, 180_000);

  test("rta killed with SIGKILL mid-write leaves the old store or the new one, which opens", async () => {
    const h = kvHome();
    // a large value makes a write long enough to be killed inside, at many points
    const big = "x".repeat(600_000);
    expect((await rta(["kv", "set", "big"], { stdin: `${big}0`, env: h.env })).code).toBe(0);
    for (let i = 1; i <= 25; i++) {
      const proc = Bun.spawn([RTA, "kv", "set", "big"], {
        env: { PATH: process.env.PATH ?? "", ...h.env },
        stdin: new TextEncoder().encode(`${big}${i}`),
        stdout: "ignore",
        stderr: "ignore",
      });
      if (i % 2 === 0) await Bun.sleep(Math.floor(Math.random() * 120));
      else {
        // the other half are killed as soon as the write's temp file is there: between its write and its rename
        while (proc.exitCode === null && !readdirSync(h.data).some((f) => f.endsWith(".tmp"))) await Bun.sleep(0);
      }
      proc.kill(9);
      await proc.exited;
      const plain = ageDecrypt(h.identity, join(h.data, "kv.age"));
      expect(plain.code).toBe(0);
      const value = JSON.parse(plain.text.split("\n")[1] as string).value as string;
      const n = Number(value.slice(big.length));
      // the store holds the value of this write or of one before it, whole
      expect(value.slice(0, big.length)).toBe(big);
      expect(n).toBeLessThanOrEqual(i);
    }
    // the next write takes over a lock its killed holder left, and cleans up its temp files
    expect((await rta(["kv", "set", "after"], { stdin: "done", env: h.env })).code).toBe(0);
    const left = Bun.spawnSync(["ls", h.data]).stdout.toString().trim().split("\n");
    expect(left.sort()).toEqual(["kv.age", "kv.age.bak"]);
  }, 180_000);
});

describe("the identity and the value", () => {
  test("an identity others may read is refused with the chmod that fixes it", async () => {
    const h = kvHome();
    expect((await rta(["kv", "set", "k"], { stdin: "v", env: h.env })).code).toBe(0);
    chmodSync(h.identity, 0o644);
    const r = await rta(["kv", "get", "k"], { env: h.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `rta: error: the identity file ${h.identity} may be read or written by others (mode 0644) (kv.identity.mode)\n` +
        `rta: hint: narrow it to its owner: chmod 600 ${h.identity}\n`,
    );
  });

  test("no identity: a store that exists is locked, with the fix", async () => {
    const h = kvHome();
    expect((await rta(["kv", "set", "k"], { stdin: "v", env: h.env })).code).toBe(0);
    const r = await rta(["kv", "list"], { env: { ...h.env, RTA_KV_IDENTITY: join(tempDir(), "none.txt") } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("(kv.locked)");
    expect(r.stderr).toContain("rta: hint: make one with `rta keys new`");
  });

  test("kv set never echoes the value, takes it from stdin only, and refuses none", async () => {
    const h = kvHome();
    const set = await rta(["kv", "set", "tok"], { stdin: "hunter2-value\n", env: h.env });
    expect(set.code).toBe(0);
    expect(set.stdout + set.stderr).not.toContain("hunter2");
    const asOption = await rta(["kv", "set", "tok", "--value", "hunter2-value"], { env: h.env });
    expect(asOption.code).toBe(2);
    expect(asOption.stderr).not.toContain("hunter2");
    const none = await rta(["kv", "set", "tok"], { stdin: "", env: h.env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("the value is read from stdin, and none came (core.input.missing)");
    expect((await rta(["kv", "get", "tok"], { env: h.env })).stdout).toBe("hunter2-value");
  });

  test("names with tabs, newlines, escape codes, `..` or a leading dash are refused as input", async () => {
    const h = kvHome();
    for (const name of ["a\tb", "a\nb", "\u001b[31mred", "../up", "a/../b", "/abs", "x".repeat(129), ""]) {
      const r = await rta(["kv", "set", "--", name], { stdin: "v", env: h.env });
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain("\u001b[31m");
    }
    expect(existsSync(join(h.data, "kv.age"))).toBe(false);
  });

  test("bytes that are not UTF-8 are refused, not stored changed; a NUL is kept", async () => {
    const h = kvHome();
    const bin = Bun.spawnSync(["sh", "-c", `printf 'a\\377b' | "$RTA" kv set bin`], {
      env: { PATH: process.env.PATH ?? "", RTA, ...h.env },
      stderr: "pipe",
    });
    expect(bin.exitCode).toBe(2);
    expect(bin.stderr.toString()).toContain("the value is not UTF-8 text");
    expect(existsSync(join(h.data, "kv.age"))).toBe(false);
    expect((await rta(["kv", "set", "nul"], { stdin: "a\u0000b", env: h.env })).code).toBe(0);
    expect((await rta(["kv", "get", "nul"], { env: h.env })).stdout).toBe("a\u0000b");
  });

  test("kv get prints the value as stored; on a person's terminal it ends the line", async () => {
    const h = kvHome();
    await rta(["kv", "set", "pem"], { stdin: "line1\nline2\n", env: h.env });
    expect((await rta(["kv", "get", "pem"], { env: h.env })).stdout).toBe("line1\nline2\n");
    await rta(["kv", "set", "one"], { stdin: "only-line\n", env: h.env });
    expect((await rta(["kv", "get", "one"], { env: h.env })).stdout).toBe("only-line");
    expect(await onTerminal(["kv", "get", "one"], h.env)).toEqual({ code: 0, out: "only-line\n" });
    expect(readFileSync(join(h.data, "kv.age")).subarray(0, 21).toString()).toBe("age-encryption.org/v1");
  });
});
