/**
 * End to end: the record cannot be made to fill the disk, a call with effects
 * whose line cannot be written does not run, and a free read whose line cannot
 * be written is not answered.
 */
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { readRecord } from "../../src/record/read.ts";
import { onSmallDisk, tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { AS_NOBODY, NOBODY } from "../support/nobody.ts";
import { RTA, rta } from "../support/rta.ts";

describe("what a caller chose is bounded in the record", () => {
  test("twenty probes with a 3.9 MB tool name, and a call with 2 MB of argument names, add kilobytes", async () => {
    const data = tempDir();
    const s = await connect("legacy", [], { dataDir: data, clientName: "c".repeat(100_000) });
    try {
      const name = "x".repeat(3_900_000);
      for (let i = 0; i < 20; i++) await s.client.callTool({ name, arguments: {} }).catch(() => undefined);
      const args = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`${i}${"k".repeat(1000)}`, 1]));
      await s.client.callTool({ name: "sys_info", arguments: args });
    } finally {
      await s.close();
    }
    const file = join(data, "agent-log.jsonl");
    expect(statSync(file).size).toBeLessThan(22 * 16 * 1024);
    const lines = readRecord(file).lines.filter((l) => !l.kind);
    expect(lines).toHaveLength(21);
    expect(lines[0]).toMatchObject({ outcome: "core.tool.unknown", probe: true });
    for (const l of lines) {
      expect(Buffer.byteLength(l.capability)).toBeLessThanOrEqual(256);
      expect(Buffer.byteLength(l.agent)).toBeLessThanOrEqual(256);
      expect(Buffer.byteLength(l.client)).toBeLessThanOrEqual(256);
    }
    expect(lines[20]).toMatchObject({
      capability: "sys_info",
      outcome: "core.mcp.badargs",
      args_cut: { names: 2000, bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  }, 60_000);
});

/** Fills the file system `dir` is on, as an agent filling the disk would, and returns how to free it. */
function fill(dir: string): () => void {
  const filler = join(dir, "filler");
  const fd = openSync(filler, "w");
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
  // what is left is smaller than a chunk: take it too
  try {
    for (;;) writeFileSync(join(dir, `crumb${Math.random()}`), "x".repeat(512));
  } catch {
    // full
  }
  return () => rmSync(filler);
}

const root = process.getuid?.() === 0;

describe("a full disk", () => {
  test.skipIf(!root)(
    "a call whose line cannot be written gets core.record.unavailable (a write runs not, a read is not answered), and the operator is told once",
    async () => {
      // a small file system of the data dir's own: the record's disk, filled by onAFullDisk
      await onSmallDisk(onAFullDisk);
    },
    60_000,
  );
});

async function onAFullDisk(data: string): Promise<void> {
  const work = tempDir();
  const secret = "the secret body of the file";
  writeFileSync(join(work, "notes.txt"), secret);
  const granted = await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "5m", "--max-uses", "2"], {
    env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
  });
  expect(granted.code).toBe(0);
  const s = await connect("legacy", ["--agent", "claude", "--root", work], { dataDir: data });
  const write = async () =>
    resultJson(await s.client.callTool({ name: "fs_write", arguments: { path: "out.txt", content: "written" } }));
  try {
    const first = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: "notes.txt" } }));
    expect(JSON.stringify(first)).toContain(secret);
    const free = fill(data);
    for (let i = 0; i < 3; i++) {
      const refused = (await s.client.callTool({ name: "fs_read", arguments: { path: "notes.txt" } })) as {
        isError?: boolean;
      };
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).not.toContain(secret);
      // a free read ran, but what it read is withheld: the agent learns nothing the record does not hold
      expect(resultJson(refused)).toMatchObject({
        type: "error",
        code: "core.record.unavailable",
        message: "the answer was withheld: the call's line cannot be written to the record",
      });
    }
    // a write is refused before it runs: the use of its grant cannot be spent, nor its `run` line written
    expect(await write()).toMatchObject({
      type: "error",
      code: "core.store.unavailable",
      message: "the grant store cannot be written",
    });
    expect(existsSync(join(work, "out.txt"))).toBe(false);
    expect(s.stderr().match(/the record cannot be written/g)).toHaveLength(1);
    expect(s.stderr()).toContain("core.record.unavailable");
    // room again: calls run and are written, and nothing was torn meanwhile
    free();
    const again = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: "notes.txt" } }));
    expect(JSON.stringify(again)).toContain(secret);
    expect(JSON.stringify(await write())).not.toContain("error");
    expect(readFileSync(join(work, "out.txt"), "utf8")).toBe("written");
  } finally {
    await s.close();
  }
  const lines = readRecord(join(data, "agent-log.jsonl"));
  expect(lines.malformed).toEqual([]);
  // a read is its outcome line alone; the write its `run` line and its outcome
  expect(lines.lines.map((l) => [l.capability, l.kind ?? l.outcome])).toEqual([
    ["", "start"],
    ["fs_read", "ok"],
    ["fs_read", "ok"],
    ["fs_write", "run"],
    ["fs_write", "ok"],
    ["", "end"],
  ]);
  const verified = await rta(["agent", "log", "--verify", "--json"], {
    env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
  });
  expect(JSON.parse(verified.stdout)).toMatchObject({ problems: [] });
}

/**
 * A data dir and a work dir (holding a.txt, a body nobody may read through rta) of nobody's, under a dir of root's,
 * and what runs rta there as nobody.
 */
function nobodysDirs(): { data: string; work: string; asNobody: string[]; env: Record<string, string> } {
  const top = tempDir();
  const data = join(top, "data");
  const work = join(top, "work");
  mkdirSync(data);
  mkdirSync(work);
  writeFileSync(join(work, "a.txt"), "the body nobody may have");
  chmodSync(top, 0o755);
  chmodSync(work, 0o755);
  chmodSync(join(work, "a.txt"), 0o644);
  chownSync(data, NOBODY, NOBODY);
  chownSync(work, NOBODY, NOBODY);
  const env = { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(top, "config"), HOME: top };
  return { data, work, asNobody: [...AS_NOBODY, RTA], env };
}

describe("a record the server cannot append to", () => {
  test.skipIf(!root)("every call is refused as core.record.unavailable, and said once on stderr", async () => {
    // root ignores modes, so the server runs as nobody, with a data dir of its own and a record file root keeps
    const { data, work, asNobody, env } = nobodysDirs();
    writeFileSync(join(data, "agent-log.jsonl"), "");
    chmodSync(join(data, "agent-log.jsonl"), 0o644);
    const grant = [...asNobody, "grant", "allow", "fs.write", "--agent", "x", "--ttl", "5m", "--max-uses", "1"];
    expect(Bun.spawnSync(grant, { env, stdout: "pipe", stderr: "pipe" }).exitCode).toBe(0);
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "fs_read", arguments: { path: "a.txt" } } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "fs_read", arguments: { path: "a.txt" } } },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "fs_write", arguments: { path: "b.txt", content: "y" } },
      },
    ];
    const proc = Bun.spawn([...asNobody, "mcp", "serve", "--root", work], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env,
    });
    proc.stdin.write(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
    await proc.stdin.flush();
    const reader = proc.stdout.getReader();
    let out = "";
    // answers to calls sent together may come in any order: every one is waited for
    while (!['"id":2', '"id":3', '"id":4'].every((id) => out.includes(id))) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    proc.stdin.end();
    const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(out).not.toContain("the body nobody may have");
    const answers = out
      .split("\n")
      .filter((l) => /"id":[234]\b/.test(l))
      .map((l) => JSON.parse(l))
      .sort((a, b) => a.id - b.id)
      .map((m) => JSON.parse(m.result.content[0].text));
    // the reads ran and their answers were withheld; the write, its `run` line first, did not run
    const withheld = "the answer was withheld: the call's line cannot be written to the record";
    expect(answers).toEqual([
      expect.objectContaining({ code: "core.record.unavailable", message: withheld }),
      expect.objectContaining({ code: "core.record.unavailable", message: withheld }),
      expect.objectContaining({
        code: "core.record.unavailable",
        message: "the call was not run: its line cannot be written to the record",
      }),
    ]);
    expect(existsSync(join(work, "b.txt"))).toBe(false);
    expect(stderr.match(/the record cannot be written/g)).toHaveLength(1);
    expect(readFileSync(join(data, "agent-log.jsonl"), "utf8")).toBe("");
  });

  test.skipIf(!root)("a gate.db the server can only read leaves no line in the file", async () => {
    // The line went into the file before the checkpoint's update failed (a store SQLite opened read-only), and
    // stayed there: each refused call left its session's start line again, numbered 1 each time, which --verify
    // then called lines reordered or repeated, and a `run` line said a call ran that never did.
    const { data, work, asNobody, env } = nobodysDirs();
    const grant = [...asNobody, "grant", "allow", "fs.write", "--agent", "x", "--ttl", "5m"];
    expect(Bun.spawnSync(grant, { env, stdout: "pipe", stderr: "pipe" }).exitCode).toBe(0);
    for (const name of ["gate.db", "gate.db-wal", "gate.db-shm"])
      if (existsSync(join(data, name))) chmodSync(join(data, name), 0o444);
    const call = (id: number, name: string, args: object) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    });
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      call(2, "fs_read", { path: "a.txt" }),
      call(3, "sys_info", {}),
      call(4, "fs_write", { path: "b.txt", content: "y" }),
      call(5, "fs_read", { path: "a.txt" }),
    ];
    const proc = Bun.spawn([...asNobody, "mcp", "serve", "--root", work, "--agent", "x"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env,
    });
    proc.stdin.write(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
    await proc.stdin.flush();
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes('"id":5')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    proc.stdin.end();
    await proc.exited;
    expect(out).not.toContain("the body nobody may have");
    expect(existsSync(join(work, "b.txt"))).toBe(false);
    // no line: the store's write lock is refused before the record is even opened
    const record = join(data, "agent-log.jsonl");
    expect(existsSync(record) ? readFileSync(record, "utf8") : "").toBe("");
  });
});

describe("the bounds count bytes as the line writes them", () => {
  test("control characters, six bytes each when written out, do not make a line larger than its bounds", async () => {
    const data = tempDir();
    const ctl = "\u0001".repeat(3000);
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, clientName: ctl });
    try {
      // a probe with control-character names, and a refusal whose hint repeats a control-character host
      await s.client.callTool({ name: ctl, arguments: { [ctl]: 1, [`${ctl}2`]: 2 } }).catch(() => undefined);
      await s.client.callTool({ name: "http_get", arguments: { url: `http://${ctl}` } });
    } finally {
      await s.close();
    }
    const rows = readFileSync(join(data, "agent-log.jsonl"), "utf8").split("\n").filter(Boolean);
    const [probe, refusal] = rows.slice(1, 3);
    // before: 8 KiB and 20 KiB, the names and the hint counted in UTF-8 and written six times as large
    expect(Buffer.byteLength(probe as string)).toBeLessThan(6 * 1024);
    expect(Buffer.byteLength(refusal as string)).toBeLessThan(10 * 1024);
    // a host no URL can hold is refused before any grant is looked at; its message repeats the host, cut
    expect(JSON.parse(refusal as string)).toMatchObject({ capability: "http_get", outcome: "net.badhost" });
  });
});
