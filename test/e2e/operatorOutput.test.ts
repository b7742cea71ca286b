/**
 * End to end: the operator's commands (grant, lock, mcp token, agent log) on
 * the built binary, as gh prints: on a terminal a grid with relative times;
 * piped, plain (one tab-separated row a line, no header, ISO times; a single
 * value alone); JSON only with --json, pretty on a terminal, rows beside
 * their total. A grant that names no agent is for the one agent known.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

const DAY_MS = 86_400_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const dirs = () => ({ RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() });

/** One session of `rta mcp serve` as `agent`, making one free call, so the record has seen the agent. */
async function served(env: Record<string, string>, agent: string): Promise<void> {
  const s = await connect("legacy", ["--agent", agent], {
    dataDir: env.RTA_DATA_DIR,
    env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR as string },
  });
  try {
    await s.client.callTool({ name: "sys_info", arguments: {} });
  } finally {
    await s.close();
  }
}

describe("mcp token new | list", () => {
  test("piped, new prints the token alone; list is tab-separated rows with ISO times, 90 days by default", async () => {
    const env = dirs();
    const made = await rta(["mcp", "token", "new", "--agent", "claude"], { env });
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^rta_[A-Za-z0-9_-]{43}\n$/);
    expect(made.stderr).toBe("");
    const rows = (await rta(["mcp", "token", "list"], { env })).stdout.split("\n").filter(Boolean);
    expect(rows).toHaveLength(1);
    const [id, agent, issued, expires, state] = (rows[0] as string).split("\t");
    expect([agent, state]).toEqual(["claude", "live"]);
    expect(id).toMatch(/^t[0-9a-f]{8}$/);
    expect(issued).toMatch(ISO);
    expect(Date.parse(expires as string) - Date.parse(issued as string)).toBe(90 * DAY_MS);
    const json = JSON.parse((await rta(["mcp", "token", "list", "--json"], { env })).stdout);
    expect(json).toMatchObject({ total: 1, tokens: [{ id, agent: "claude", expires_at: expires, state: "live" }] });
  });

  test("on a terminal, new says whose it is and until when; list shows the expiry relative; --json is pretty", async () => {
    const env = dirs();
    const made = await onTerminal(["mcp", "token", "new", "--agent", "claude", "--ttl", "2h"], env);
    expect(made.code).toBe(0);
    expect(made.out).toMatch(/^rta_[A-Za-z0-9_-]{43}\n/);
    expect(made.out).toMatch(/for agent claude, until \d{4}-\d\d-\d\dT[\d:]+Z \(in 2h\); it is shown once/);
    const listed = await onTerminal(["mcp", "token", "list"], env);
    expect(listed.out).toMatch(/^ID +AGENT +ISSUED +EXPIRES +STATE\n/);
    expect(listed.out).toMatch(/claude +(now|\d+s ago) +in (1h|2h) +live\n/);
    const pretty = await onTerminal(["mcp", "token", "list", "--json"], env);
    expect(pretty.out).toStartWith('{\n  "tokens": [\n');
    expect(JSON.parse(pretty.out).total).toBe(1);
  });

  test("the policy's max_token_ttl caps --ttl with core.grant.ceiling and its hint, and shortens the default", async () => {
    const env = dirs();
    mkdirSync(env.RTA_CONFIG_DIR, { recursive: true });
    writeFileSync(join(env.RTA_CONFIG_DIR, "policy.toml"), 'max_token_ttl = "30d"\n');
    const over = await rta(["mcp", "token", "new", "--agent", "claude", "--ttl", "31d"], { env });
    expect(over.code).toBe(3);
    expect(over.stdout).toBe("");
    expect(over.stderr).toBe(
      "rta: error: the token would last longer than the team policy's max_token_ttl (30d) (core.grant.ceiling)\n" +
        "rta: hint: make it with --ttl 30d or less\n",
    );
    expect((await rta(["mcp", "token", "new", "--agent", "claude"], { env })).code).toBe(0);
    const [t] = JSON.parse((await rta(["mcp", "token", "list", "--json"], { env })).stdout).tokens;
    expect(Date.parse(t.expires_at) - Date.parse(t.issued_at)).toBe(30 * DAY_MS);
  });

  test("an expired token is refused by the HTTP front like a revoked one", async () => {
    const srv = await startHttp();
    try {
      const token = await srv.token("claude");
      const post = () => srv.initialize(token);
      expect((await post()).status).toBe(200);
      const db = new Database(join(srv.env.RTA_DATA_DIR as string, "gate.db"));
      db.query("UPDATE tokens SET expires_at = issued_at + 1").run();
      db.close();
      expect((await post()).status).toBe(401);
      const listed = (await rta(["mcp", "token", "list"], { env: srv.env })).stdout;
      expect(listed).toMatch(/\tclaude\t.+\texpired\n$/);
    } finally {
      await srv.stop();
    }
  });
});

describe("grant allow | list, lock", () => {
  test("piped: allow prints the id, list one tab-separated row a grant; an --args grant shows its arguments", async () => {
    const env = dirs();
    const allow = (...more: string[]) => rta(["grant", "allow", ...more, "--agent", "claude", "--ttl", "30m"], { env });
    const a = await allow("fs.write", "hello.txt");
    expect(a.stdout).toMatch(/^g[0-9a-f]{8}\n$/);
    expect(a.stderr).toContain("narrowed to: path hello.txt\n");
    const b = await allow("note.rm", "--args", '{ "id": "n1" }');
    expect(b.code).toBe(0);
    const rows = (await rta(["grant", "list"], { env })).stdout.split("\n").filter(Boolean);
    expect(rows.map((r) => r.split("\t").slice(0, 5))).toEqual([
      [a.stdout.trim(), "fs.write", "claude", "path hello.txt", "0/any"],
      [b.stdout.trim(), "note.rm", "claude", 'args {"id":"n1"}', "0/any"],
    ]);
    for (const r of rows) expect(r.split("\t")[5]).toMatch(ISO);
    const json = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout);
    expect(json.total).toBe(2);
    expect(json.grants[1]).toMatchObject({ args: '{"id":"n1"}', args_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(json.grants[1].expires_at).toMatch(ISO);
    // a grant id from a pipe is what revoke takes
    expect((await rta(["grant", "revoke", b.stdout.trim()], { env })).stdout).toBe("1\n");
  });

  test("on a terminal: a grid with relative times, the path and the arguments as written", async () => {
    const env = dirs();
    await onTerminal(["grant", "allow", "fs.write", "hello.txt", "--agent", "claude", "--ttl", "30m"], env);
    const r = await onTerminal(["grant", "list"], env);
    expect(r.out).toMatch(/^ID +TARGET +AGENT +NARROWED TO +USES +EXPIRES +STATE\n/);
    expect(r.out).toMatch(/fs\.write +claude +path hello\.txt +0\/any +in (29|30)m +live\n/);
    const lock = await onTerminal(["lock", "note", "--agent", "claude", "--ttl", "1h"], env);
    expect(lock.out).toMatch(/^locked l[0-9a-f]{8}: note for agent claude, until [\d-]+T[\d:]+Z \(in (59m|1h)\); lift/);
    const piped = await rta(["lock", "list"], { env });
    expect(piped.stdout).toMatch(/^l[0-9a-f]{8}\tnote\tclaude\t\d{4}-[\d-]+T[\d:]+Z\tactive\n$/);
    expect((await rta(["lock", "lift", "--all"], { env })).stdout).toBe("1\n");
  });

  test("no --agent: the one agent registered or seen is used and said; none or several is core.input.missing", async () => {
    const env = dirs();
    const none = await rta(["grant", "allow", "note", "--ttl", "30m"], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      "rta: error: the grant names no agent, and none is registered or seen in the record (core.input.missing)\n" +
        "rta: hint: name one with --agent: rta grant allow note --ttl 30m --agent claude\n",
    );
    // seed 003's own line, with the one agent the record has seen
    await served(env, "claude");
    const one = await rta(["grant", "allow", "note", "--ttl", "8h"], { env });
    expect(one.code).toBe(0);
    expect(one.stderr).toStartWith("for agent claude, the one agent registered or seen\n");
    expect(one.stdout).toMatch(/^g[0-9a-f]{8}\n$/);
    // a token for another agent makes two
    await rta(["mcp", "token", "new", "--agent", "cursor"], { env });
    const two = await onTerminal(["grant", "allow", "note", "--ttl", "30m"], env);
    expect(two.code).toBe(2);
    expect(two.out).toContain("the grant names no agent, and 2 are registered or seen: claude, cursor");
    const grants = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout).grants;
    expect(grants.map((g: { agent: string }) => g.agent)).toEqual(["claude"]);
  });
});

describe("explain", () => {
  test("piped, one tab-separated line a capability and a never-a-tool verb; a card says what a grant narrows", async () => {
    const piped = (await rta(["explain"])).stdout.split("\n").filter(Boolean);
    expect(piped.find((l) => l.startsWith("fs.read\t"))).toMatch(/^fs\.read\tread\tfree \(mcp\)\t\S.+$/);
    expect(piped).toContain("kv copy\t\tnever a tool\tthe person's alone");
    expect(piped.every((l) => l.split("\t").length === 4)).toBe(true);
    expect(JSON.parse((await rta(["explain", "--json"])).stdout).areas.length).toBeGreaterThan(3);
    const card = await onTerminal(["explain", "fs.write"], dirs());
    expect(card.out).toContain(
      "  narrows   a grant can be narrowed to one path: rta grant allow fs.write <path> ...\n",
    );
  });
});

describe("agent overview and log, piped and on a terminal", () => {
  test("overview piped is key<TAB>value lines; log --json on a terminal is an array, one call a line", async () => {
    const env = dirs();
    await served(env, "claude");
    const piped = (await rta(["agent", "overview", "--detail"], { env })).stdout.split("\n").filter(Boolean);
    expect(piped.slice(0, 5)).toEqual(["sessions\t1", "agents\tclaude", "calls\t1", "probes\t0", "grants_spent\t0"]);
    expect(piped[6]).toMatch(
      /^session\t[0-9a-f]{8}\tclaude\t.+\t\d{4}-[\d-]+T[\d:]+Z\t\d{4}-[\d-]+T[\d:]+Z\t1\t0\tended$/,
    );
    const screen = await onTerminal(["agent", "log", "--session", "--json"], env);
    expect(screen.out).toMatch(/^\[\n\{"time":.+"agent":"claude".+\}\n\]\n$/);
    expect(JSON.parse(screen.out)).toHaveLength(1);
    const log = await onTerminal(["agent", "log"], env);
    expect(log.out).toMatch(/^\d{4}-[\d-]+T[\d:]+Z {2}[0-9a-f]{8} {2}claude {2}sys_info {2}ok {2}\d+ ms\n$/);
  });
});

describe("agent log --follow", () => {
  test("piped, each new call is a line as it comes; Ctrl-C ends it with 130, as log tail --follow", async () => {
    const env = dirs();
    await served(env, "claude");
    const proc = Bun.spawn([RTA, "agent", "log", "--follow"], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    const lines = async (n: number) => {
      while (seen.split("\n").length - 1 < n) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      return seen.split("\n").filter(Boolean);
    };
    expect((await lines(1))[0]).toMatch(/^\d{4}-[\d-]+T[\d:]+Z\t[0-9a-f]{8}\tclaude\tsys_info\tok\t\d+\t\t$/);
    await served(env, "cursor");
    expect((await lines(2))[1]).toContain("\tcursor\tsys_info\tok\t");
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(await new Response(proc.stderr).text()).toBe("");
  });

  test("| head ends it when head has what it wanted, with no error", async () => {
    const env = dirs();
    await served(env, "claude");
    await served(env, "claude");
    const quoted = `'${RTA}'`;
    // sh waits for both ends of the pipe: this ends only if rta does once head has gone
    const proc = Bun.spawn(["sh", "-c", `${quoted} agent log --follow | head -1`], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(code).toBe(0);
    expect(out.split("\n")[0]).toContain("\tclaude\tsys_info\tok\t");
    expect(err).toBe("");
  });
});
