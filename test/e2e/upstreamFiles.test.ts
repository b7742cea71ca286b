/**
 * End to end: the official filesystem MCP server (run with node from the
 * installed package) as a stdio upstream of the built binary, on both eras:
 * its read tools are free, write_file needs a grant, a lock stops both, the
 * record has both, and its child is stopped with the server.
 */
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";

const SERVER = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js",
);
const NODE = Bun.which("node") as string;

/** A data dir, a config dir putting the filesystem server over `srv` behind rta, and `srv` with one file. */
function setUp() {
  const data = tempDir();
  const config = tempDir();
  const srv = tempDir();
  writeFileSync(join(srv, "a.txt"), "hello from the upstream\n");
  writeFileSync(
    join(config, "config.toml"),
    `[upstreams.files]\ncommand = [${JSON.stringify(NODE)}, ${JSON.stringify(SERVER)}, ${JSON.stringify(srv)}]\n`,
  );
  return { data, config, srv, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data } };
}

function children(pid: number): string {
  try {
    return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" });
  } catch {
    return "";
  }
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`the filesystem server behind rta (${era})`, () => {
    test("reads are free, write_file needs a grant, a lock stops both, the record has both", async () => {
      const { data, srv, env } = setUp();
      await approveUpstream(env, "files");
      const server = await connect(era, [], { dataDir: data, env });
      const call = async (name: string, args: Record<string, unknown>) =>
        resultJson(await server.client.callTool({ name, arguments: args }));
      let pid = 0;
      try {
        pid = server.pid() ?? 0;
        const { tools } = await server.client.listTools();
        const read = tools.find((t) => t.name === "files_read_text_file");
        const write = tools.find((t) => t.name === "files_write_file");
        expect(read?.annotations?.readOnlyHint).toBe(true);
        // what is not a read leaves readOnly out (false, as the spec reads it) and says whether it destroys
        expect(write?.annotations?.readOnlyHint ?? false).toBe(false);
        expect(write?.annotations?.destructiveHint).toBe(true);
        // the upstream's words sit after rta's sentence, in the frame that says whose they are
        expect(read?.description).toStartWith("[rta] Safety class: read. Free to call.");
        expect(read?.description).toContain("is declared by upstream server files: its own words");
        expect(write?.description).toContain("rta grant allow files.write_file");
        // the upstream's own schema, as it sent it
        expect(Object.keys((read?.inputSchema ?? {}) as object)).toContain("properties");
        expect(JSON.stringify(read?.inputSchema)).toContain(`"path"`);
        expect(children(pid)).toContain("server-filesystem");

        const text = await call("files_read_text_file", { path: join(srv, "a.txt") });
        // its structured content is rta's object shape
        expect(text).toEqual({ type: "object", value: { content: "hello from the upstream\n" } });
        // args are shaped against the upstream's schema before anything runs
        const bad = await call("files_read_text_file", { path: 7 });
        expect(bad).toMatchObject({ type: "error", code: "core.mcp.badargs" });

        const refused = await call("files_write_file", { path: join(srv, "b.txt"), content: "new" });
        expect(refused).toMatchObject({ type: "error", code: "core.grant.required" });
        const granted = await rta(["grant", "allow", "files.write_file", "--agent", "rta-e2e", "--ttl", "5m"], { env });
        expect(granted.code).toBe(0);
        const wrote = await call("files_write_file", { path: join(srv, "b.txt"), content: "new" });
        expect(wrote.type).not.toBe("error");
        expect(readFileSync(join(srv, "b.txt"), "utf8")).toBe("new");

        // a child that dies is started again on a later call, after its backoff, and said as unavailable meanwhile
        const child = Number(children(pid).trim().split(/\s+/)[0]);
        process.kill(child, "SIGKILL");
        let again: Record<string, unknown> = {};
        for (let i = 0; i < 50; i++) {
          again = await call("files_read_text_file", { path: join(srv, "a.txt") });
          if (again.type !== "error") break;
          expect(again).toMatchObject({ code: "upstream.unavailable" });
          // it names nothing of the command or its arguments
          expect(String(again.message)).not.toContain("server-filesystem");
          expect(String(again.message)).not.toContain(srv);
          await Bun.sleep(100);
        }
        expect(again.type).toBe("object");
        expect(Number(children(pid).trim().split(/\s+/)[0])).not.toBe(child);

        expect((await rta(["lock", "--agent", "rta-e2e"], { env })).code).toBe(0);
        expect(await call("files_read_text_file", { path: join(srv, "a.txt") })).toMatchObject({
          code: "core.lock.locked",
        });
        expect(await call("files_write_file", { path: join(srv, "c.txt"), content: "x" })).toMatchObject({
          code: "core.lock.locked",
        });
      } finally {
        await server.close();
      }
      const lines = readFileSync(join(data, "agent-log.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const outcomes = (name: string) => lines.filter((l) => l.capability === name).map((l) => l.outcome);
      expect(outcomes("files_read_text_file")).toEqual(
        expect.arrayContaining(["ok", "core.mcp.badargs", "core.lock.locked"]),
      );
      expect(outcomes("files_write_file")).toEqual(
        expect.arrayContaining(["core.grant.required", "ok", "core.lock.locked"]),
      );
      // the child went with the server
      for (let i = 0; i < 100 && children(pid).includes("server-filesystem"); i++) await Bun.sleep(20);
      expect(children(pid)).not.toContain("server-filesystem");
    }, 30_000);
  });
}

describe("the filesystem server's 100 MB answer", () => {
  test("is refused by the bound as it is read, the server's peak RSS under 120 MiB, and it serves on", async () => {
    const { data, srv, env } = setUp();
    writeFileSync(join(srv, "big.txt"), "x".repeat(100 * 1024 * 1024));
    await approveUpstream(env, "files");
    const server = await connect("legacy", [], { dataDir: data, env });
    try {
      expect(await server.client.getInstructions()).toContain(
        "The tools of upstream server files come from MCP servers",
      );
      const call = async (args: Record<string, unknown>) =>
        resultJson(await server.client.callTool({ name: "files_read_text_file", arguments: args }));
      expect(await call({ path: join(srv, "big.txt") })).toMatchObject({ code: "core.result.toolarge" });
      const peak = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid()}/status`, "utf8"))?.[1]);
      expect(peak).toBeLessThan(120 * 1024);
      let again: Record<string, unknown> = {};
      for (let i = 0; i < 50; i++) {
        again = await call({ path: join(srv, "a.txt") });
        if (again.type !== "error") break;
        await Bun.sleep(100);
      }
      expect(again.type).toBe("object");
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("a bad [upstreams] entry", () => {
  test("is said by rta config check and leaves the rest of the config standing", async () => {
    const { config, env } = setUp();
    writeFileSync(
      join(config, "config.toml"),
      `${readFileSync(join(config, "config.toml"), "utf8")}[upstreams.Bad]\nurl = "ftp://x"\n`,
    );
    const checked = await rta(["config", "check"], { env });
    expect(checked.code).toBe(2);
    expect(checked.stdout + checked.stderr).toContain("[upstreams.Bad] is not a name");
    const listed = await rta(["upstream", "list", "--json"], { env });
    expect(JSON.parse(listed.stdout).upstreams.map((u: { name: string }) => u.name)).toEqual(["files"]);
    // the entry that does not read is in no row, so the listing says it on stderr and exits 1
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("[upstreams.Bad] is not a name");
    expect(listed.stderr).toContain("rta config check");
  }, 30_000);

  test("alone, is said by rta upstream list, which exits 1 rather than print nothing", async () => {
    const { config, env } = setUp();
    writeFileSync(join(config, "config.toml"), "[upstreams.x]\ncommand = 5\n");
    const listed = await rta(["upstream", "list"], { env });
    expect(listed.code).toBe(1);
    expect(listed.stdout).toBe("");
    expect(listed.stderr).toContain("[upstreams.x] command must be a list of words");
    expect(listed.stderr).not.toContain("    at ");
  }, 30_000);
});

describe("a server with an upstream left out", () => {
  test("says so in its banner on stderr, with the reason, and serves the rest", async () => {
    const { config, env } = setUp();
    writeFileSync(
      join(config, "config.toml"),
      `${readFileSync(join(config, "config.toml"), "utf8")}[upstreams.gone]\ncommand = ["mcp-server-off-path"]\n`,
    );
    // stdin ends at once: the server discovers, says its banner, and stops
    const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "claude"], { stdin: "ignore", stderr: "pipe", env });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stderr).toContain(
      "\nrta: upstream gone is left out, its tools not offered: its command was not found: give the program's absolute path, as rta runs it with PATH=/usr/local/bin:/usr/bin:/bin (`rta upstream list` says more)\n",
    );
    expect(stderr).not.toContain("upstream files is left out");
  }, 30_000);
});

describe("a grant before the first discovery", () => {
  test("names the upstream and how to discover it, then is issued once rta upstream list has run", async () => {
    const { env } = setUp();
    const allow = ["grant", "allow", "files.write_file", "--agent", "claude", "--ttl", "5m"];
    const early = await rta(allow, { env });
    expect(early.code).toBe(2);
    expect(early.stderr).toBe(
      'rta: error: rta knows no tool "files.write_file" of upstream files (not discovered yet) (core.tool.unknown)\n' +
        "rta: hint: run `rta upstream list` to discover its tools now, then grant again\n",
    );
    expect((await rta(["upstream", "list"], { env })).code).toBe(0);
    // discovered, and in quarantine: a grant waits for the person's approval
    const held = await rta(allow, { env });
    expect(held.code).toBe(3);
    expect(held.stderr).toBe(
      'rta: error: "files.write_file" is withheld: upstream files is not approved yet (upstream.quarantined)\n' +
        "rta: hint: run `rta upstream approve files` to see its tools and approve them, then grant again\n",
    );
    await approveUpstream(env, "files");
    expect((await rta(allow, { env })).code).toBe(0);
  }, 30_000);
});

describe("rta upstream list", () => {
  test("lists each tool with its safety class, and a failing upstream with its reason, exiting 1", async () => {
    const { config, env } = setUp();
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, "config.toml"),
      `${readFileSync(join(config, "config.toml"), "utf8")}[upstreams.gone]\ncommand = ["/nonexistent/mcp-server"]\n`,
    );
    await approveUpstream(env, "files");
    const listed = await rta(["upstream", "list", "--json"], { env });
    expect(listed.code).toBe(1);
    const json = JSON.parse(listed.stdout) as {
      upstreams: {
        name: string;
        state: string;
        reason?: string;
        tools: { tool: string; capability: string; safety: string }[];
      }[];
    };
    const files = json.upstreams.find((u) => u.name === "files");
    expect(files?.state).toBe("ready");
    expect(files?.tools).toContainEqual({ tool: "read_text_file", capability: "files.read_text_file", safety: "read" });
    expect(files?.tools).toContainEqual({ tool: "write_file", capability: "files.write_file", safety: "destructive" });
    const gone = json.upstreams.find((u) => u.name === "gone");
    expect(gone?.state).toBe("failed");
    // the reason names nothing of the command
    expect(gone?.reason).not.toContain("nonexistent");
    // a new user's likeliest slip, a program off rta's fixed PATH, is named with its fix, not as an unreachable server
    expect(gone?.reason).toStartWith("its command was not found: give the program's absolute path");
    const plain = await rta(["upstream", "list"], { env });
    expect(plain.stdout).toContain("files\tready\tread_text_file\tfiles.read_text_file\tread\t");
    // the exit status 1 is said on stderr, which upstream failed and what to do, as find says what it skipped
    expect(plain.code).toBe(1);
    expect(plain.stderr).toStartWith("rta: 1 upstream is left out: gone\nrta: hint: ");
    // the help names a discovered upstream's area as an upstream's tools, not as rta's own capabilities
    expect((await rta(["files", "--help"], { env })).stdout).toContain("the tools of upstream MCP server files");
  }, 30_000);
});
