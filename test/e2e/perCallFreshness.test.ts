/**
 * What a running server keeps between calls to spend less per call (the
 * locks, read again only when gate.db's data_version changed; config and
 * policy, looked at once per RECHECK_MS; the record's checkpoint) never
 * hides what another process did, on the built binary:
 * - a lock or a lift from the CLI holds from every server's very next call,
 *   after calls that kept the locks and while the servers write lines;
 * - a grant revoked from the CLI stops the next call that would spend it;
 * - a policy or config edit holds once its bound has passed (waited past,
 *   never timed);
 * - a server killed with SIGKILL mid-run lost no call its client was answered
 *   for, and --verify says only that its session was cut.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RECHECK_MS } from "../../src/core/recheck.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

function dirsEnv() {
  const data = tempDir();
  const config = tempDir();
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

const sysInfo = { name: "sys_info", arguments: {} };
const TOKEN =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

describe("another process's lock, lift and revoke", () => {
  test("a lock from the CLI stops two running servers' very next call, and its lift restores it", async () => {
    const { data, config, env } = dirsEnv();
    const a = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const b = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      // many calls on each: the locks are held in memory, and each server's lines bump the other's data_version
      for (let i = 0; i < 20; i++) {
        expect((await a.client.callTool(sysInfo)).isError).toBeFalsy();
        expect((await b.client.callTool(sysInfo)).isError).toBeFalsy();
      }
      for (let round = 0; round < 3; round++) {
        expect((await rta(["lock", "sys", "--agent", "claude"], { env })).code).toBe(0);
        expect(resultJson(await a.client.callTool(sysInfo)).code).toBe("core.lock.locked");
        expect(resultJson(await b.client.callTool(sysInfo)).code).toBe("core.lock.locked");
        // a call the lock does not cover is not stopped by it
        expect((await a.client.callTool({ name: "jwt_decode", arguments: { token: TOKEN } })).isError).toBeFalsy();
        expect((await rta(["lock", "lift", "--agent", "claude"], { env })).code).toBe(0);
        expect((await a.client.callTool(sysInfo)).isError).toBeFalsy();
        expect((await b.client.callTool(sysInfo)).isError).toBeFalsy();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("a grant revoked from the CLI stops the next call that would spend it", async () => {
    const { data, config, env } = dirsEnv();
    expect((await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await s.client.callTool({ name: "note_add", arguments: { title: `n${i}`, body: "x" } });
        expect(r.isError).toBeFalsy();
      }
      expect((await rta(["grant", "revoke", "--agent", "claude"], { env })).code).toBe(0);
      const refused = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "late", body: "x" } }),
      );
      expect(refused.code).toBe("core.grant.required");
    } finally {
      await s.close();
    }
  });
});

describe("a config or policy edit while a server runs", () => {
  test("holds from the first call past the stated bound: a never list written, then taken away", async () => {
    const { data, config, env } = dirsEnv();
    expect((await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const add = async (title: string) =>
      resultJson(await s.client.callTool({ name: "note_add", arguments: { title, body: "x" } }));
    try {
      expect((await add("before")).code).toBeUndefined();
      writeFileSync(join(config, "policy.toml"), 'never = ["note.add"]\n');
      await Bun.sleep(RECHECK_MS + 50);
      expect((await add("during")).code).toBe("core.grant.ceiling");
      writeFileSync(join(config, "policy.toml"), "# no ceiling\n");
      await Bun.sleep(RECHECK_MS + 50);
      expect((await add("after")).code).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  test("a config.toml made while the server runs fills what it says", async () => {
    const { data, config } = dirsEnv();
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const before = resultJson(await s.client.callTool({ name: "proc_list", arguments: {} }));
      expect((before.rows as unknown[]).length).toBeGreaterThan(1);
      writeFileSync(join(config, "config.toml"), '[defaults."proc.list"]\nlimit = 1\n');
      await Bun.sleep(RECHECK_MS + 50);
      const after = resultJson(await s.client.callTool({ name: "proc_list", arguments: {} }));
      expect(after.rows as unknown[]).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});

describe("a server killed mid-run", () => {
  test("loses no answered call from the record, and --verify says only that its session was cut", async () => {
    const { data, config, env } = dirsEnv();
    // free reads (one line each, written before the answer) and writes (a `run` line first), interleaved
    expect((await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
    const note = { name: "note_add", arguments: { title: "t", body: "b" } };
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const answered = { sys_info: 0, note_add: 0 };
    const ok = (r: unknown) => (r as { isError?: boolean }).isError !== true;
    for (let i = 0; i < 50; i++) {
      if (ok(await s.client.callTool(sysInfo))) answered.sys_info++;
      if (i % 5 === 0 && ok(await s.client.callTool(note))) answered.note_add++;
    }
    // calls under way as it dies: the ones answered before the kill count too
    const inFlight = Array.from({ length: 8 }, (_, i) => {
      const tool = i % 2 === 0 ? sysInfo : note;
      return s.client.callTool(tool).then(
        (r) => {
          if (ok(r)) answered[tool.name as keyof typeof answered]++;
        },
        () => {},
      );
    });
    process.kill(s.pid() as number, "SIGKILL");
    await Promise.all(inFlight);
    expect(answered.note_add).toBeGreaterThanOrEqual(10);
    await s.close().catch(() => {});
    const lines = readFileSync(join(data, "agent-log.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind?: string; capability: string; outcome: string });
    for (const tool of ["sys_info", "note_add"] as const) {
      const outcomes = lines.filter((l) => l.kind === undefined && l.capability === tool && l.outcome === "ok");
      expect(outcomes.length).toBeGreaterThanOrEqual(answered[tool]);
    }
    const v = await rta(["agent", "log", "--verify", "--json"], { env });
    const problems = (JSON.parse(v.stdout) as { problems: { kind: string }[] }).problems;
    expect([...new Set(problems.map((p) => p.kind))]).toEqual(["cut-tail"]);
  });
});
