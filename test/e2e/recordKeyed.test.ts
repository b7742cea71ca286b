/**
 * End to end: the record's keyed chain against the attacks that passed
 * `rta agent log --verify` before it had a key: a whole session cut out, one
 * call cut and the chain recomputed, a made-up session appended; and a cut
 * tail and a replaced file, which the store's checkpoint catches.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonical } from "../../src/core/canonical.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

interface Line {
  session: string;
  seq: number;
  kind?: string;
  [field: string]: unknown;
}

/** Three sessions, one after another, written by real servers: 3 + 3 + 2 free reads, one line each. */
async function recordOfThree() {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  for (const calls of [3, 3, 2]) {
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    for (let i = 0; i < calls; i++) await s.client.callTool({ name: "sys_info", arguments: {} });
    await s.close();
  }
  const file = join(data, "agent-log.jsonl");
  const lines = () =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  const write = (rows: Line[]) => writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  const verify = async () => {
    const r = await rta(["agent", "log", "--verify", "--json"], { env });
    const verdict = JSON.parse(r.stdout) as { problems: { kind: string; what: string }[]; lines: number };
    return { code: r.code, verdict, kinds: [...new Set(verdict.problems.map((p) => p.kind))].sort() };
  };
  const human = async () => (await onTerminal(["agent", "log", "--verify"], env)).out;
  const sessions = () => [...new Set(lines().map((l) => l.session))];
  return { data, env, file, lines, write, verify, human, sessions };
}

/** What an attacker without the key can do: chain the lines again with sha256, as the unkeyed record was. */
function rechained(rows: Line[]): Line[] {
  let prev = "";
  return rows.map((row, i) => {
    const { mac: _mac, ...rest }: Line = { ...row, n: i + 1 };
    const mac = createHash("sha256").update(prev).update("\n").update(canonical(rest)).digest("hex");
    prev = mac;
    return { ...rest, mac };
  });
}

describe("the keyed record against the attacks that passed --verify", () => {
  test("untouched, it verifies; its key is 0600 in the data dir", async () => {
    const r = await recordOfThree();
    const v = await r.verify();
    expect(v).toMatchObject({ code: 0, verdict: { problems: [], lines: 3 * 2 + 8 } });
    expect(statSync(join(r.data, "record.key")).mode & 0o777).toBe(0o600);
  });

  test("a whole session deleted is a cut session", async () => {
    const r = await recordOfThree();
    const middle = r.sessions()[1];
    r.write(r.lines().filter((l) => l.session !== middle));
    const v = await r.verify();
    expect(v.code).toBe(1);
    expect(v.kinds).toEqual(["cut-session"]);
    expect(await r.human()).toMatch(/^cut-session: line \d+ follows a gap in the chain: 5 missing line\(s\)/m);
  });

  test("one call deleted and the chain recomputed is a forgery and a cut tail", async () => {
    const r = await recordOfThree();
    const rows = r.lines();
    const gone = rows.findIndex((l) => l.outcome === "ok");
    const kept = rows.filter((_, i) => i !== gone);
    const first = r.sessions()[0];
    r.write(rechained(kept.map((l) => (l.session === first && l.seq > 2 ? { ...l, seq: l.seq - 1 } : l))));
    const v = await r.verify();
    expect(v.code).toBe(1);
    expect(v.kinds).toEqual(["cut-tail", "replaced"]);
    // rechained only after the cut, the lines before it keep their macs, and those after it are forged
    const partly = [...rows.slice(0, gone), ...rechained(kept).slice(gone)];
    r.write(partly);
    expect((await r.verify()).kinds).toEqual(["cut-inside", "cut-tail", "forged"]);
  });

  test("a made-up session appended is forged", async () => {
    const r = await recordOfThree();
    const rows = r.lines();
    const last = rows.at(-1) as Line;
    const made = ["start", "call", "end"].map((kind, i) => ({
      ...last,
      session: "f0f0f0f0",
      seq: i + 1,
      n: (last.n as number) + i + 1,
      ...(kind === "call" ? { kind: undefined, capability: "fs_rm", outcome: "ok" } : { kind, outcome: kind }),
      mac: createHash("sha256").update(String(i)).digest("hex"),
    }));
    r.write([...rows, ...made]);
    const v = await r.verify();
    expect(v.code).toBe(1);
    expect(v.kinds).toEqual(["forged"]);
    expect(v.verdict.problems).toHaveLength(3);
  });

  test("a line given a decoy field, which JSON.parse drops and grep reads first, is forged", async () => {
    const r = await recordOfThree();
    const text = readFileSync(r.file, "utf8");
    const call = text.split("\n").find((l) => l.includes('"outcome":"ok"')) as string;
    // the same values to rta, whose JSON.parse keeps the last "agent"; another agent to grep and to some readers
    const decoy = call.replace('{"time"', '{"agent":"mallory","capability":"fs_rm","time"');
    writeFileSync(r.file, text.replace(call, decoy));
    const { code, verdict } = await r.verify();
    expect(code).toBe(1);
    expect(verdict.problems).toEqual([
      expect.objectContaining({ kind: "forged", what: expect.stringContaining("spelled otherwise") }),
    ]);
    // and a line with spaces added is named the same way
    writeFileSync(r.file, text.replace(call, call.replaceAll(",", ", ")));
    expect((await r.verify()).kinds).toEqual(["forged"]);
  });

  test("a line appended by hand claiming place 2^53 - 1 is named, and the servers' lines after it still match their chain", async () => {
    const r = await recordOfThree();
    const rows = r.lines();
    const made = {
      ...(rows.at(-1) as Line),
      session: "deadbeef",
      seq: 1,
      n: Number.MAX_SAFE_INTEGER,
      mac: "0".repeat(64),
    };
    appendFileSync(r.file, `${JSON.stringify(made)}\n`);
    // a server after it numbered its lines from the made-up place: past 2^53, none could ever verify again
    const s = await connect("legacy", ["--agent", "claude"], {
      dataDir: r.data,
      env: { RTA_CONFIG_DIR: r.env.RTA_CONFIG_DIR },
    });
    await s.client.callTool({ name: "sys_info", arguments: {} });
    await s.close();
    const after = r.lines().slice(rows.length + 1);
    expect(after.map((l) => l.n)).toEqual([rows.length + 1, rows.length + 2, rows.length + 3]);
    // every true line after it matches its chain; before, each was numbered past 2^53, "not a record line"
    const { verdict } = await r.verify();
    const problems = verdict.problems as unknown as { kind: string; line: number }[];
    expect(problems.filter((p) => p.line > rows.length + 1 && p.kind === "forged")).toEqual([]);
    expect(problems.some((p) => p.line === rows.length + 1)).toBe(true);
  });

  test("a cut tail ending on a whole session is caught by the checkpoint", async () => {
    const r = await recordOfThree();
    const last = r.sessions()[2];
    r.write(r.lines().filter((l) => l.session !== last));
    const v = await r.verify();
    expect(v.code).toBe(1);
    expect(v.kinds).toEqual(["cut-tail"]);
    expect(await r.human()).toMatch(
      /^cut-tail: line 10 \(session \w+\) is line 10 of the chain .* the record's last 4 line\(s\) were cut$/m,
    );
  });

  test("a record replaced by another, keyed elsewhere, is replaced", async () => {
    const r = await recordOfThree();
    const other = await recordOfThree();
    writeFileSync(r.file, readFileSync(other.file));
    const v = await r.verify();
    expect(v.code).toBe(1);
    expect(v.kinds).toEqual(["replaced"]);
  });

  test("a record written before the key is named as such, and new calls are keyed after it", async () => {
    const data = tempDir();
    const config = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    // the unkeyed chain: sha256 per session over the line without its hash
    let prev = "";
    const old = [
      { kind: "start", outcome: "start", capability: "", seq: 1, pid: 1 },
      { outcome: "ok", capability: "sys_info", seq: 2 },
      { kind: "end", outcome: "end", capability: "", seq: 3 },
    ].map((l) => {
      const line = {
        time: "2026-11-01T00:00:00.000Z",
        session: "0ld0ld00",
        agent: "",
        client: "",
        transport: "stdio",
        duration_ms: 0,
        args: [],
        ...l,
      };
      prev = createHash("sha256").update(prev).update("\n").update(canonical(line)).digest("hex");
      return `${JSON.stringify({ ...line, hash: prev })}\n`;
    });
    writeFileSync(join(data, "agent-log.jsonl"), old.join(""));
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    await s.client.callTool({ name: "sys_info", arguments: {} });
    await s.close();
    const r = await rta(["agent", "log", "--verify", "--json"], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      unkeyed: 3,
      lines: 6,
      problems: [{ kind: "unkeyed", line: 1, what: expect.stringContaining("before the record had a key") }],
    });
    expect((await rta(["agent", "log", "--json"], { env })).stdout).toContain('"session":"0ld0ld00"');
  });

  test("the key is withheld from an agent, however it is named", async () => {
    const data = tempDir();
    const s = await connect("legacy", ["--root", data], { dataDir: data });
    try {
      await s.client.callTool({ name: "sys_info", arguments: {} }); // makes the key
      for (const path of [join(data, "record.key"), "record.key", `./x/../record.key`, `${data}//record.key`]) {
        const r = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path } }));
        expect(r.code).toBe("core.path.withheld");
      }
      const found = resultJson(await s.client.callTool({ name: "fs_find", arguments: { path: ".", name: "*.key" } }));
      expect(JSON.stringify(found)).not.toContain("record.key");
    } finally {
      await s.close();
    }
  });
});

test("--verify names a record whose path holds a terminal's controls escaped, never acting on the terminal", async () => {
  const data = join(tempDir(), "da\x1b[31mta\nx");
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
  const s = await connect("legacy", ["--agent", "claude"], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR },
  });
  await s.client.callTool({ name: "sys_info", arguments: {} });
  await s.close();
  const verified = await rta(["agent", "log", "--verify"], { env });
  expect(verified.code).toBe(0);
  expect(verified.stdout).toStartWith("record verified: ");
  expect(verified.stdout).not.toContain("\x1b");
  expect(verified.stdout.split("\n")).toHaveLength(2);
});
