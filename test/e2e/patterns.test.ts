/**
 * End to end: a pattern an agent sends cannot freeze dist/rta. Patterns that
 * backtrack for minutes under JavaScript's RegExp come back; what RE2 cannot
 * take is refused as core.input.invalid; and while a long search runs, the
 * server answers other calls (and /healthz over HTTP) and stops the search
 * when the client cancels it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** 68 lines, about 3 KB, like the file the first pattern held a server on for a minute. */
function smallFile(dir: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 68; i++) {
    if (i % 17 === 5)
      lines.push("a".repeat(38)); // ends in a run of a: ((a+))+$ matches it
    else if (i % 17 === 9)
      lines.push(`${"a".repeat(36)}!`); // a run of a that fails at its end
    else lines.push(`  const value${String(i).padStart(2, "0")} = compute(alpha, beta, gamma);`);
  }
  writeFileSync(join(dir, "config.ts"), `${lines.join("\n")}\n`);
  return "config.ts";
}

/**
 * 8 MB of words that RE2 searches slowly with SLOW, a pattern every engine
 * takes and nothing matches: its DFA has too many states to keep, so RE2 goes
 * at well under 1 MB/s (linear, but slow). That is many seconds of work on any
 * machine, so other calls arrive while it runs; JavaScript's RegExp is quick
 * on it, but holds the server for all of it.
 */
function bigTree(dir: string): void {
  const words = ["alpha", "beta", "gamma", "delta", "cache", "worker", "queue", "socket", "user", "request"];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  for (let f = 0; f < 8; f++) {
    const lines: string[] = [];
    let size = 0;
    while (size < 1_000_000) {
      const n = 20 + (next() % 180);
      const line = Array.from({ length: n }, () => words[next() % 10]).join(" ");
      lines.push(line);
      size += line.length + 1;
    }
    mkdirSync(join(dir, `d${f % 4}`), { recursive: true });
    writeFileSync(join(dir, `d${f % 4}`, `f${f}.txt`), `${lines.join("\n")}\n`);
  }
}
const SLOW = "[a-m][a-z ]{25}[0-9]";

/**
 * Starts the SLOW search through `client`: `stop` cancels it, `outcome` says
 * how it ended, and `settled` whether it has ended yet.
 */
function slowGrep(client: Client) {
  const stop = new AbortController();
  let grepSettled = false;
  const outcome = client
    .callTool({ name: "fs_grep", arguments: { pattern: SLOW, path: "." } }, { signal: stop.signal, timeout: 600_000 })
    .then(
      () => "answered",
      () => "aborted",
    )
    .finally(() => {
      grepSettled = true;
    });
  return { stop, outcome, settled: () => grepSettled };
}

/** The record's lines for one tool, read with `rta agent log` as an operator would, until `want` says they are there. */
async function recordOf(
  env: Record<string, string>,
  tool: string,
  want: (outcomes: string[]) => boolean,
): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const r = await rta(["agent", "log", "--json"], { env });
    const outcomes = (JSON.parse(r.stdout || "[]") as { capability: string; outcome: string }[])
      .filter((l) => l.capability === tool)
      .map((l) => l.outcome);
    if (want(outcomes)) return outcomes;
    await Bun.sleep(100);
  }
  throw new Error(`no ${tool} line in the record`);
}

describe("patterns that backtrack for minutes under RegExp", () => {
  test("come back, with the lines RE2 finds", async () => {
    const root = tempDir();
    const file = smallFile(root);
    const s = await connect("modern", ["--root", root]);
    try {
      const grep = async (pattern: string) =>
        resultJson(await s.client.callTool({ name: "fs_grep", arguments: { pattern, path: file } }));
      expect(await grep("^(.|.?)+\\x00")).toMatchObject({ type: "table", rows: [] });
      const runs = await grep("((a+))+$");
      expect((runs.rows as unknown[][]).map((r) => r[1])).toEqual([6, 23, 40, 57]);
      const every = await grep("(a|a)*$");
      expect((every.rows as unknown[][]).length).toBe(68);
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe("what RE2 cannot take", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: backreferences and lookaround are core.input.invalid, with a hint in RE2's terms`, async () => {
      const root = tempDir();
      const file = smallFile(root);
      const s = await connect(era, ["--root", root]);
      try {
        for (const pattern of ["(a)\\1", "(?<x>a)\\k<x>", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b"]) {
          const r = await s.client.callTool({ name: "fs_grep", arguments: { pattern, path: file } });
          expect(r.isError).toBe(true);
          const e = resultJson(r);
          expect(e.code).toBe("core.input.invalid");
          expect(e.message as string).toMatch(/backreference|lookahead|lookbehind/);
          expect(e.hint as string).toContain("RE2 syntax");
        }
      } finally {
        await s.close();
      }
    });
  }
});

describe("a long search", () => {
  test("stdio: another call is answered while it runs, and a cancel stops it", async () => {
    const root = tempDir();
    bigTree(root);
    const data = tempDir();
    const config = tempDir();
    const s = await connect("legacy", ["--root", root], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const grep = slowGrep(s.client);
      const info = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
      expect(info.type).toBe("object");
      expect(grep.settled()).toBe(false); // the search was still running when sys_info came back
      grep.stop.abort();
      expect(await grep.outcome).toBe("aborted");
      // The server stopped the search: the record says it was cancelled, and the next call is answered.
      expect(await recordOf({ RTA_DATA_DIR: data, RTA_CONFIG_DIR: config }, "fs_grep", (o) => o.length > 0)).toEqual([
        "core.call.cancelled",
      ]);
      expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
    } finally {
      await s.close();
    }
  }, 120_000);

  test("HTTP: /healthz and another agent are answered while it runs", async () => {
    const root = tempDir();
    bigTree(root);
    const srv = await startHttp(["--root", root]);
    const client = async (agent: string) => {
      const c = new Client({ name: agent, version: "1" });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(srv.url), {
          requestInit: { headers: { Authorization: `Bearer ${await srv.token(agent)}` } },
        }),
      );
      return c;
    };
    const alice = await client("alice");
    const bob = await client("bob");
    try {
      const grep = slowGrep(alice);
      const health = await fetch(`http://127.0.0.1:${srv.port}/healthz`);
      expect(health.status).toBe(200);
      expect(resultJson(await bob.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
      expect(grep.settled()).toBe(false);
      grep.stop.abort();
      expect(await grep.outcome).toBe("aborted");
      expect(await recordOf(srv.env, "fs_grep", (o) => o.length > 0)).toEqual(["core.call.cancelled"]);
    } finally {
      await alice.close();
      await bob.close();
      await srv.stop();
    }
  }, 120_000);
});
