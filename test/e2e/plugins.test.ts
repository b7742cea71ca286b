/**
 * End to end: the shell plugins of test/fixtures/plugins installed with the
 * built binary and called over MCP on both eras: path inputs as descriptors
 * that lead nowhere else, a 100 MB answer refused from its frame with the
 * server's memory unmoved, a hung plugin killed on cancel, a crash told to
 * the agent bare and to the record with its stderr, and a plugin whose
 * describe is malformed left out while everything else is served.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fixture, running } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { installPlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

/** A data dir with `plugins` installed, and a root holding `files`. */
async function installed(plugins: string[], files: Record<string, string> = {}) {
  const data = tempDir();
  for (const name of plugins) await installPlugin(fixture(name), data, { HOME: tempDir() });
  const root = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return { data, root };
}

/** The lines of the record under `data`, parsed. */
function recordOf(data: string) {
  return readFileSync(join(data, "agent-log.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** The error detail the record keeps of plugin `name`'s `<name>_fail`, called by an agent and answered core.plugin.failed. */
async function failedDetail(name: string): Promise<string | undefined> {
  const { data } = await installed([name]);
  const server = await connect("legacy", [], { dataDir: data });
  try {
    const said = resultJson(await server.client.callTool({ name: `${name}_fail`, arguments: {} }));
    expect(said).toMatchObject({ type: "error", code: "core.plugin.failed" });
  } finally {
    await server.close();
  }
  return recordOf(data).find((l) => l.outcome === "core.plugin.failed")?.error?.detail;
}

async function gone(file: string): Promise<number[]> {
  for (let i = 0; i < 250 && running(file).length > 0; i++) await Bun.sleep(20);
  return running(file);
}

function peakKiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`the shell plugin over MCP (${era})`, () => {
    test("its tools are listed and answer, a path input reaching it as a descriptor it cannot walk out of", async () => {
      const { data, root } = await installed(["demo", "escape"], { "notes.txt": "twelve bytes", secret: "x" });
      const server = await connect(era, ["--root", root], { dataDir: data });
      try {
        const tools = (await server.client.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(expect.arrayContaining(["demo_echo", "demo_wc", "demo_sleep", "escape_try"]));
        const echo = await server.client.callTool({ name: "demo_echo", arguments: { text: "tab\there" } });
        expect(resultJson(echo)).toEqual({ type: "text", text: "tab\there" });
        const wc = await server.client.callTool({ name: "demo_wc", arguments: { file: join(root, "notes.txt") } });
        expect(resultJson(wc)).toEqual({ type: "object", value: { bytes: 12 } });
        const tried = await server.client.callTool({
          name: "escape_try",
          arguments: { file: join(root, "notes.txt") },
        });
        expect(resultJson(tried)).toEqual({
          type: "object",
          value: {
            bytes: 12,
            parent: "nothing",
            beside: "nothing",
            below: "nothing",
            listing: "nothing",
            other_fds: "",
          },
        });
        const outside = await server.client.callTool({ name: "demo_wc", arguments: { file: "/etc/hostname" } });
        expect(resultJson(outside)).toMatchObject({ type: "error", code: "core.path.outside" });
        const env = resultJson(await server.client.callTool({ name: "demo_env", arguments: {} }));
        expect(env).toMatchObject({ value: { path: "/usr/local/bin:/usr/bin:/bin", protocol: "1", cwd: "/" } });
      } finally {
        await server.close();
      }
    });
  });
}

describe("a misbehaving plugin over MCP", () => {
  test("a 100 MB answer is refused from its frame, the server's peak RSS under 100 MiB, and it serves on", async () => {
    const { data } = await installed(["huge", "demo"]);
    const server = await connect("modern", [], { dataDir: data });
    try {
      const huge = resultJson(await server.client.callTool({ name: "huge_dump", arguments: {} }));
      expect(huge).toMatchObject({ type: "error", code: "core.result.toolarge" });
      expect(String(huge.message)).toContain("100.0 MiB");
      expect(peakKiB(server.pid() as number)).toBeLessThan(100 * 1024);
      expect(await gone(join(data, "plugins", "rta-plugin-huge"))).toEqual([]);
      const echo = await server.client.callTool({ name: "demo_echo", arguments: { text: "still here" } });
      expect(resultJson(echo)).toEqual({ type: "text", text: "still here" });
    } finally {
      await server.close();
    }
  });

  test("an answer under the byte bound holding 1.2 million values is refused before it is parsed, and it serves on", async () => {
    const { data } = await installed(["many", "demo"]);
    const server = await connect("modern", [], { dataDir: data });
    try {
      const many = resultJson(await server.client.callTool({ name: "many_rows", arguments: {} }));
      expect(many).toMatchObject({ type: "error", code: "core.result.toolarge" });
      expect(String(many.message)).toContain("more than 1,000,000 values");
      const echo = await server.client.callTool({ name: "demo_echo", arguments: { text: "still here" } });
      expect(resultJson(echo)).toEqual({ type: "text", text: "still here" });
    } finally {
      await server.close();
    }
  });

  test("a plugin that closed its stdin fails the next call at once, and the one after is served by a new child", async () => {
    const { data } = await installed(["deaf"]);
    const server = await connect("modern", [], { dataDir: data });
    try {
      const call = async () => resultJson(await server.client.callTool({ name: "deaf_once", arguments: {} }));
      expect(await call()).toEqual({ type: "text", text: "once" });
      expect(await call()).toMatchObject({ type: "error", code: "core.plugin.failed" });
      expect(await call()).toEqual({ type: "text", text: "once" });
    } finally {
      await server.close();
    }
  });

  test("over HTTP, an agent whose 32 slots hold calls to a plugin that hangs can still cancel one", async () => {
    const { data } = await installed(["hang"]);
    const srv = await startHttp([], { data, config: tempDir() });
    const client = new Client({ name: "rta-e2e", version: "1.0.0" });
    try {
      const token = await srv.token("claude");
      const auth = { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
      await client.connect(new StreamableHTTPClientTransport(new URL(srv.url), auth));
      const aborts = Array.from({ length: 32 }, () => new AbortController());
      const calls = aborts.map((a) => client.callTool({ name: "hang_wait", arguments: {} }, { signal: a.signal }));
      for (const call of calls) call.catch(() => {});
      // a 33rd call is refused: every slot is taken
      let said = "";
      for (let i = 0; i < 250 && !said.includes("32 requests in flight"); i++) {
        said = await client.callTool({ name: "hang_wait", arguments: {} }).then(
          () => "answered",
          (e) => String(e),
        );
        if (!said.includes("32 requests in flight")) await Bun.sleep(20);
      }
      expect(said).toContain("32 requests in flight");
      (aborts[31] as AbortController).abort();
      const record = join(data, "agent-log.jsonl");
      const cancelled = () =>
        existsSync(record) && readFileSync(record, "utf8").includes('"outcome":"core.call.cancelled"');
      for (let i = 0; i < 250 && !cancelled(); i++) await Bun.sleep(20);
      expect(cancelled()).toBe(true);
    } finally {
      await client.close().catch(() => {});
      await srv.stop();
    }
  });

  test("a plugin that hangs is killed once the agent cancels, and the next call is answered", {
    timeout: 20_000,
  }, async () => {
    const { data } = await installed(["hang", "demo"]);
    const server = await connect("modern", [], { dataDir: data });
    try {
      const abort = new AbortController();
      const call = server.client.callTool({ name: "hang_wait", arguments: {} }, { signal: abort.signal });
      const file = join(data, "plugins", "rta-plugin-hang");
      for (let i = 0; i < 250 && running(file).length === 0; i++) await Bun.sleep(20);
      expect(running(file).length).toBeGreaterThan(0);
      call.catch(() => {});
      abort.abort();
      expect(await gone(file)).toEqual([]);
      const echo = await server.client.callTool({ name: "demo_echo", arguments: { text: "after" } });
      expect(resultJson(echo)).toEqual({ type: "text", text: "after" });
    } finally {
      await server.close();
    }
  });

  test("a crash is core.plugin.failed to the agent, and its stderr is in the record only", async () => {
    const { data } = await installed(["crash"]);
    const server = await connect("legacy", [], { dataDir: data });
    try {
      const result = await server.client.callTool({ name: "crash_now", arguments: {} });
      const said = resultJson(result);
      expect(said).toMatchObject({ type: "error", code: "core.plugin.failed" });
      expect(JSON.stringify(result)).not.toContain("fall over");
    } finally {
      await server.close();
    }
    const lines = recordOf(data);
    const failed = lines.find((l) => l.outcome === "core.plugin.failed");
    expect(failed?.error?.detail).toContain("crash.now: about to fall over");
  });

  test("what a plugin leaves behind holding its stdout ends with it: a crash is answered, nothing outlives a call", async () => {
    const { data, root } = await installed(["orphan"], { "notes.txt": "x" });
    const file = join(data, "plugins", "rta-plugin-orphan");
    const server = await connect("modern", ["--root", root], { dataDir: data });
    try {
      const crash = resultJson(await server.client.callTool({ name: "orphan_crash", arguments: {} }));
      expect(crash).toMatchObject({ type: "error", code: "core.plugin.failed" });
      expect(await gone(file)).toEqual([]);
      const keep = await server.client.callTool({ name: "orphan_keep", arguments: { file: join(root, "notes.txt") } });
      expect(resultJson(keep)).toEqual({ type: "text", text: "kept" });
      expect(await gone(file)).toEqual([]);
    } finally {
      await server.close();
      for (const pid of running(file)) process.kill(pid, "SIGKILL");
    }
  });

  test("an answer nested 40,000 deep or holding 1e999 is core.plugin.failed, to the agent and in the record alike", async () => {
    const { data } = await installed(["deep", "demo"]);
    const server = await connect("modern", [], { dataDir: data });
    try {
      for (const name of ["deep_nest", "deep_huge"]) {
        const said = resultJson(await server.client.callTool({ name, arguments: {} }));
        expect(said).toMatchObject({ type: "error", code: "core.plugin.failed" });
      }
      const echo = await server.client.callTool({ name: "demo_echo", arguments: { text: "after" } });
      expect(resultJson(echo)).toEqual({ type: "text", text: "after" });
    } finally {
      await server.close();
    }
    const outcomes = recordOf(data)
      .filter((l) => String(l.capability).startsWith("deep_"))
      .map((l) => l.outcome);
    expect(outcomes).toEqual(["core.plugin.failed", "core.plugin.failed"]);
    const cli = await rta(["deep", "nest"], {
      env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), HOME: tempDir() },
    });
    expect(cli.stderr).toContain("(core.plugin.failed)");
  });

  test("the stderr tail in the record starts at a whole line: a credential cut at its head is not kept", async () => {
    const detail = await failedDetail("chatty");
    expect(detail).toContain("yyyy\n");
    expect(detail).not.toContain("sekrit");
  });

  test("a private key on a failed plugin's stderr whose BEGIN was cut off the tail is masked to its END in the record", async () => {
    const detail = await failedDetail("keyed");
    expect(detail).toContain("-----END OPENSSH PRIVATE KEY-----\ngiving up\n");
    expect(detail).not.toContain("b3BlbnNzaC1rZXktdjE");
  });

  test("plugins that changed since they were installed are described at once, not one after the other", async () => {
    const dir = tempDir();
    const data = tempDir();
    for (const name of ["pa", "pb"]) {
      copyFileSync(fixture("pair"), join(dir, `rta-plugin-${name}`));
      await installPlugin(join(dir, `rta-plugin-${name}`), data, { HOME: tempDir() });
      appendFileSync(join(data, "plugins", `rta-plugin-${name}`), "# changed since\n");
    }
    // each now answers describe only once the other was asked too
    const home = tempDir();
    writeFileSync(join(home, "rendezvous"), "");
    const server = await connect("modern", [], { dataDir: data, env: { HOME: home } });
    try {
      const tools = (await server.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(["pa_hi", "pb_hi"]));
    } finally {
      await server.close();
    }
  });

  test("a plugin whose describe is malformed is left out, and everything else is served", async () => {
    const { data } = await installed(["demo"]);
    // the installed binary replaced by one that answers describe with a newline-framed message
    copyFileSync(fixture("mute"), join(data, "plugins", "rta-plugin-demo"));
    const server = await connect("modern", [], { dataDir: data });
    try {
      const tools = (await server.client.listTools()).tools.map((t) => t.name);
      expect(tools.some((t) => t.startsWith("demo_"))).toBe(false);
      expect(tools).toContain("sys_info");
      const info = await server.client.callTool({ name: "sys_info", arguments: {} });
      expect(resultJson(info)).toMatchObject({ type: "object" });
    } finally {
      await server.close();
    }
  });
});

describe("the shell plugin on the CLI", () => {
  test("a person's calls: a file by any name as fd 3, a directory refused, a write through the gate, the card", async () => {
    const { data, root } = await installed(["demo"], { "odd\tname\nx": "abc" });
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), HOME: tempDir() };
    const wc = await rta(["demo", "wc", join(root, "odd\tname\nx")], { env });
    expect(wc).toEqual({ code: 0, stdout: "bytes\t3\n", stderr: "" });
    const dir = await rta(["demo", "wc", root], { env });
    expect(dir.code).toBe(1);
    expect(dir.stderr).toContain("(fs.notfile)");
    expect((await rta(["demo", "stamp", join(root, "out.txt")], { env })).code).toBe(0);
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("stamped by rta-plugin-demo\n");
    const card = await rta(["explain", "demo.greet"], { env });
    expect(card.stdout).toContain("widens name: refused under a profile that fences name");
  });
});
