/**
 * End to end: the record as servers write it and as `rta agent` reads it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { RTA, rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

function sessionOf(stderr: string): string {
  const id = stderr.match(/^record: .+ \(session (\w+)\)$/m)?.[1];
  if (!id) throw new Error(`no session in the banner: ${stderr}`);
  return id;
}

describe("the banner's session", () => {
  test("rta agent log --session shows exactly that server's calls, probes and refusals included", async () => {
    const data = tempDir();
    const config = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    const a = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const b = await connect("modern", ["--agent", "cursor"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    await a.client.callTool({ name: "sys_info", arguments: {} });
    await a.client.callTool({ name: "note_add", arguments: { title: "x", body: "y" } }); // refused: no grant
    await a.client.callTool({ name: "grant_allow", arguments: {} }).catch(() => undefined); // a probe
    await b.client.callTool({ name: "proc_list", arguments: { limit: 1 } });
    const session = sessionOf(a.stderr());
    await a.close();
    await b.close();
    const r = await rta(["agent", "log", "--session", session, "--json"], { env });
    expect(r.code).toBe(0);
    const lines = JSON.parse(r.stdout) as { capability: string; outcome: string; session: string; probe?: boolean }[];
    expect(lines.map((l) => [l.capability, l.outcome])).toEqual([
      ["sys_info", "ok"],
      ["note_add", "core.grant.required"],
      ["grant_allow", "core.tool.unknown"],
    ]);
    expect(lines[2]?.probe).toBe(true);
    expect(lines.every((l) => l.session === session)).toBe(true);
    // --session with no id is the latest session to start: cursor's, started second
    const latest = JSON.parse((await rta(["agent", "log", "--session", "--json"], { env })).stdout);
    expect(latest.map((l: { capability: string; agent: string }) => [l.capability, l.agent])).toEqual([
      ["proc_list", "cursor"],
    ]);
    // with --agent, it is that agent's latest session, not the latest of all and then nothing
    const claudes = JSON.parse(
      (await rta(["agent", "log", "--session", "--agent", "claude", "--json"], { env })).stdout,
    );
    expect(claudes.map((l: { capability: string; session: string }) => [l.capability, l.session])).toEqual([
      ["sys_info", session],
      ["note_add", session],
      ["grant_allow", session],
    ]);
    const nobody = await rta(["agent", "log", "--agent", "zed", "--session"], { env });
    expect([nobody.code, nobody.stdout]).toEqual([0, ""]);
    expect(nobody.stderr).toContain("no sessions of agent zed in ");
    // piped, a call is one tab-separated line: time in ISO, session, agent, capability, outcome, ms, grant, probe
    const plain = await rta(["agent", "log", "--session", session], { env });
    const rows = plain.stdout.split("\n").filter(Boolean);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z\t${session}\tclaude\tgrant_allow\tcore\\.tool\\.unknown\t\\d+\t\tprobe$`,
      ),
    );
    expect((await rta(["agent", "log", "--session", session, "--code", "nope"], { env })).stdout).toBe("");
    const refusedOnly = JSON.parse(
      (await rta(["agent", "log", "--code", "core.grant.required", "--json"], { env })).stdout,
    );
    expect(refusedOnly).toHaveLength(1);
    const recordLine = readRecord(join(data, "agent-log.jsonl")).lines.find((l) => l.outcome === "core.grant.required");
    expect(recordLine?.error?.message).toBe("note.add needs a grant for agent claude");
    const overview = JSON.parse((await rta(["agent", "overview", "--detail", "--json"], { env })).stdout);
    expect(overview).toMatchObject({
      sessions: 2,
      agents: ["claude", "cursor"],
      calls: 4,
      probes: 1,
      refusals: { "core.grant.required": 1, "core.tool.unknown": 1 },
    });
    expect(overview.file).toBe(a.stderr().match(/^record: (.+) \(session/m)?.[1]);
    const verified = JSON.parse((await rta(["agent", "log", "--verify", "--json"], { env })).stdout);
    // two starts, two ends and four outcomes: the two calls that ran are free reads, each whole in its one line
    expect(verified).toMatchObject({ sessions: 2, lines: 8, problems: [], open: [] });
  });
});

describe("concurrent writers", () => {
  test("four servers making 1,000 calls each at once leave 4,000 intact lines, and --verify passes", async () => {
    const data = tempDir();
    const config = tempDir();
    const servers = await Promise.all(
      [0, 1, 2, 3].map(() =>
        connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } }),
      ),
    );
    await Promise.all(
      servers.map(async (s) => {
        for (let batch = 0; batch < 10; batch++) {
          await Promise.all(
            Array.from({ length: 100 }, () => s.client.callTool({ name: "jwt_decode", arguments: { token: "a.b" } })),
          );
        }
      }),
    );
    await Promise.all(servers.map((s) => s.close()));
    const { lines, malformed } = readRecord(join(data, "agent-log.jsonl"));
    expect(malformed).toEqual([]);
    expect(lines.filter((l) => !l.kind)).toHaveLength(4000);
    const verified = await rta(["agent", "log", "--verify", "--json"], {
      env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
    });
    expect(verified.code).toBe(0);
    // each call is a free read: its outcome line alone, written before it was answered
    expect(JSON.parse(verified.stdout)).toMatchObject({ sessions: 4, lines: 4008, problems: [] });
  }, 120_000);
});

describe("watching it happen", () => {
  test("--follow prints calls as they happen, and --verbose puts one short line a call on stderr", async () => {
    const data = tempDir();
    const config = tempDir();
    const follow = Bun.spawn([RTA, "agent", "log", "--follow", "--json"], {
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      await Bun.sleep(300);
      const s = await connect("legacy", ["--agent", "claude", "--verbose"], {
        dataDir: data,
        env: { RTA_CONFIG_DIR: config },
      });
      const token = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`;
      await s.client.callTool({ name: "jwt_decode", arguments: { token } });
      await s.close();
      expect(s.stderr()).toMatch(/^rta: claude jwt_decode ok \d+ ms$/m);
      expect(s.stderr()).not.toContain(token);
      const reader = follow.stdout.getReader();
      let out = "";
      const deadline = Date.now() + 10_000;
      while (!out.includes("jwt_decode") && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const first = JSON.parse(out.split("\n")[0] as string);
      expect(first).toMatchObject({ capability: "jwt_decode", outcome: "ok", agent: "claude" });
    } finally {
      follow.kill();
    }
  });
});

describe("redaction, end to end", () => {
  test("a path the agent sent is left as it was, and rta's own places are never named", async () => {
    const data = tempDir();
    const s = await connect("legacy", ["--root", data], { dataDir: data });
    try {
      const sent = join(data, "agent-log.jsonl");
      const r = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: sent } }));
      expect(r).toMatchObject({
        code: "core.path.withheld",
        message: `${JSON.stringify(sent)} is withheld from agents`,
      });
      const listing = resultJson(await s.client.callTool({ name: "fs_list", arguments: { path: "." } }));
      expect(JSON.stringify(listing)).not.toContain(data);
    } finally {
      await s.close();
    }
  });
});

describe("a server stopped by a signal", () => {
  test("SIGTERM, SIGINT or SIGHUP still writes the session's end line, so --verify finds nothing cut", async () => {
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      const proc = Bun.spawn([RTA, "mcp", "serve", "--root", tempDir()], {
        env: { PATH: process.env.PATH ?? "", ...env },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const reader = proc.stderr.getReader();
      let banner = "";
      while (!banner.includes("(session ")) {
        const { value, done } = await reader.read();
        if (done) break;
        banner += new TextDecoder().decode(value);
      }
      proc.kill(sig);
      expect(await proc.exited).toBe(0);
    }
    const verified = JSON.parse((await rta(["agent", "log", "--verify", "--json"], { env })).stdout);
    expect(verified).toMatchObject({ sessions: 3, problems: [], open: [] });
  });
});

test("a call under way when the signal comes finishes, is answered and is written to the record before the session's end", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  let arrived: () => void = () => {};
  const reached = new Promise<void>((r) => {
    arrived = r;
  });
  const slow = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      arrived();
      await Bun.sleep(2000);
      return new Response("late");
    },
  });
  try {
    await rta(["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "127.0.0.1"], { env });
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const call = s.client
      .callTool({ name: "http_get", arguments: { url: `http://127.0.0.1:${slow.port}/` } })
      .then((r) => resultJson(r).type)
      .catch(() => undefined);
    await reached;
    process.kill(s.pid() as number, "SIGTERM");
    expect(await call).toBe("object");
    await s.close().catch(() => undefined);
    const lines = readRecord(join(data, "agent-log.jsonl")).lines;
    expect(lines.map((l) => l.outcome ?? l.kind)).toEqual(["start", "run", "ok", "end"]);
  } finally {
    slow.stop(true);
  }
}, 20_000);
