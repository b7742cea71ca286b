/**
 * End to end: the result bound and the request bound of dist/rta mcp serve.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";

describe("a table past 80 KiB", () => {
  // Enough processes with long command lines that the process table passes 80 KiB:
  // `sleep` adds up its arguments, and a run of zeros is a zero.
  const sleepers: Subprocess[] = [];
  beforeAll(() => {
    for (let i = 0; i < 320; i++)
      sleepers.push(Bun.spawn(["sleep", "120", "0".repeat(300)], { stdio: ["ignore", "ignore", "ignore"] }));
  });
  afterAll(() => {
    for (const p of sleepers) p.kill();
  });

  test("comes back cut to its first rows, with its true total and core.mcp.result.cut", async () => {
    const s = await connect("modern");
    try {
      const r = await s.client.callTool({ name: "proc_list", arguments: { sort: "pid", limit: 1000 } });
      const text = (r.content as { text: string }[])[0]?.text ?? "";
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(80 * 1024);
      const t = resultJson(r);
      const rows = t.rows as unknown[][];
      expect(t.total as number).toBeGreaterThan(320);
      expect(rows.length).toBeLessThan(t.total as number);
      expect(rows[0]?.[0]).toBe(1);
      expect(t.warning).toMatchObject({ code: "core.mcp.result.cut" });
    } finally {
      await s.close();
    }
    // The person at the CLI is not bounded.
    const cli = JSON.parse((await rta(["proc", "list", "--sort", "pid", "--limit", "1000", "--json"])).stdout);
    expect(cli.rows.length).toBe(cli.total);
    expect(cli.warning).toBeUndefined();
  });
});

describe("--max-result", () => {
  test("outside 1..256 is refused before the server starts", async () => {
    for (const bad of ["0", "257", "8.5", "lots"]) {
      const r = await rta(["mcp", "serve", "--max-result", bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("(core.input.range)");
      expect(r.stderr).not.toContain("listening");
    }
  });
});

describe("a request past 4 MiB", () => {
  async function sendHuge(
    message: (write: (s: string) => boolean) => void,
  ): Promise<{ code: number; stderr: string; stdout: string }> {
    const proc = Bun.spawn([RTA, "mcp", "serve"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
    });
    const write = (s: string) => {
      try {
        proc.stdin.write(s);
        return true;
      } catch {
        return false; // the server has ended the session and closed its end
      }
    };
    message(write);
    try {
      await proc.stdin.end();
    } catch {
      // already closed by the server
    }
    const [code, stderr, stdout] = await Promise.all([
      proc.exited,
      new Response(proc.stderr).text(),
      new Response(proc.stdout).text(),
    ]);
    return { code, stderr, stdout };
  }

  test("a 100 MB message ends the session, with the limit on stderr", async () => {
    const r = await sendHuge((write) => {
      write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"jwt_decode","arguments":{"token":"');
      const chunk = "x".repeat(1024 * 1024);
      for (let i = 0; i < 100; i++) if (!write(chunk)) break;
      write('"}}}\n');
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("4 MiB");
    expect(r.stdout).toBe("");
  });

  test("spreading a message across many lines does not make it small", async () => {
    const r = await sendHuge((write) => {
      write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sys_info","arguments":{"pad":[\n');
      const line = `${'"y",'.repeat(100)}\n`;
      for (let i = 0; i < 20_000; i++) if (!write(line)) break;
      write('"z"]}}}\n');
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("4 MiB");
  });

  test("a message just under the limit is served", async () => {
    const proc = Bun.spawn([RTA, "mcp", "serve"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
    });
    const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } };
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init })}\n`);
    const token = "x".repeat(4 * 1024 * 1024 - 200);
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "jwt_decode", arguments: { token } } })}\n`,
    );
    await proc.stdin.flush();
    // Read until the answer to the large call arrives; only then close stdin (in-flight calls end with it).
    let out = "";
    const reader = proc.stdout.getReader();
    while (!out.includes('"id":2')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    await proc.stdin.end();
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(0);
    expect(stderr).not.toContain("4 MiB");
    expect(out).toContain("jwt.malformed");
  });
});
