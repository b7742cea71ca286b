/**
 * End to end: a person reading a record that is not a file (a dir or a FIFO in its place, which the server refuses
 * calls on) is told so with fs.notfile: a dir failed as core.internal (and `--verify` said EISDIR with status 0), and
 * a FIFO kept `agent log`, `--verify` and `agent overview` waiting for good. With --json the refusal is also JSON on
 * stdout (it was said as text only).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect } from "../support/mcpClient.ts";
import { AS_NOBODY } from "../support/nobody.ts";
import { noStack, RTA, rta } from "../support/rta.ts";

const READERS = [
  ["agent", "log"],
  ["agent", "log", "--verify"],
  ["agent", "overview"],
  ["agent", "log", "--follow"],
];

describe("a record that is not a file", () => {
  for (const [kind, make] of [
    ["a directory", (path: string) => mkdirSync(path)],
    ["a FIFO", (path: string) => Bun.spawnSync(["mkfifo", path])],
  ] as const) {
    test(`${kind} in its place is named by every reader, exit 1`, async () => {
      const data = tempDir();
      const record = join(data, "agent-log.jsonl");
      make(record);
      for (const args of READERS) {
        const ran = await rta(args, { env: { RTA_DATA_DIR: data } });
        expect(ran.code).toBe(1);
        expect(ran.stdout).toBe("");
        expect(ran.stderr).toContain(
          `rta: error: ${record} is not a file: ${kind} is in the record's place (fs.notfile)`,
        );
        expect(ran.stderr).toContain("rta: hint: move it aside and put the record file back");
        expect(noStack(ran.stderr)).toBe(true);
        // with --json the same refusal is also the error object on stdout, as every other refusal of a command
        const json = await rta([...args, "--json"], { env: { RTA_DATA_DIR: data } });
        expect(json.code).toBe(1);
        expect(JSON.parse(json.stdout)).toMatchObject({ type: "error", code: "fs.notfile" });
      }
    });
  }
});

describe("a gate.db that is not a database", () => {
  test("--verify says why in the store's words, with one code", async () => {
    const data = tempDir();
    writeFileSync(join(data, "gate.db"), "garbage\n");
    const ran = await rta(["agent", "log", "--verify"], { env: { RTA_DATA_DIR: data } });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain(
      "rta: error: the record cannot be verified: gate.db cannot be read: the grant store could not be opened: file is not a database (core.record.unavailable)\n",
    );
    expect(ran.stderr).not.toContain("(core.store.unavailable)");
  });
});

describe("--follow while a dir stands in the record's place", () => {
  test("waits it out and follows the record put back, where it failed as core.internal", async () => {
    const data = tempDir();
    const config = tempDir();
    const record = join(data, "agent-log.jsonl");
    const follow = Bun.spawn([RTA, "agent", "log", "--follow", "--json"], {
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      await Bun.sleep(300);
      mkdirSync(record);
      // Long enough for several of --follow's looks at the record (every 200 ms) to find the dir.
      await Bun.sleep(1_000);
      rmdirSync(record);
      const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      const token = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`;
      await s.client.callTool({ name: "jwt_decode", arguments: { token } });
      await s.close();
      const reader = follow.stdout.getReader();
      let out = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
        if (out.includes("jwt_decode")) break;
      }
      expect(out).toContain('"capability":"jwt_decode"');
    } finally {
      follow.kill();
    }
    const stderr = await new Response(follow.stderr).text();
    expect(stderr).not.toContain("core.internal");
  }, 20_000);
});

describe("a record this account cannot read", () => {
  test("every reader says so as core.record.unavailable, where it failed as core.internal", async () => {
    const data = tempDir();
    chmodSync(data, 0o755);
    const record = join(data, "agent-log.jsonl");
    writeFileSync(record, "", { mode: 0o600 });
    for (const args of [
      ["agent", "log"],
      ["agent", "overview"],
      ["agent", "log", "--follow"],
    ]) {
      // As nobody, so the file's mode bites (the tests run as root).
      const proc = Bun.spawn([...AS_NOBODY, RTA, ...args], {
        env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(code).toBe(3);
      expect(stderr).toContain(
        `rta: error: the record cannot be read: ${record} is not readable by this account (EACCES) (core.record.unavailable)`,
      );
      expect(stderr).toContain("rta: hint: run it as the user the servers run as");
    }
  });
});
