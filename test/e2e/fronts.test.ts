/**
 * End to end: what a hostile client can make the fronts of dist/rta mcp serve
 * hold, over stdio and HTTP. Each test is a hole an attack on the built binary
 * found: an answer many times the size of its request, and answers piling up
 * for a client that never reads them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import type { Era } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";

const KiB = 1024;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fronts", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

const INITIALIZE = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fronts", version: "1" } },
};

/**
 * A prompts/get whose arguments (a map of strings) hold 300,000 numbers: each
 * breaks the schema, and the schema's error names every one. About 3 MiB.
 */
function manyWrongArguments(era: Era, id: number | string): Record<string, unknown> {
  const args: Record<string, number> = {};
  for (let i = 0; i < 300_000; i++) args[i.toString(36)] = 1;
  return {
    jsonrpc: "2.0",
    id,
    method: "prompts/get",
    params: { name: "site_check", arguments: args, ...(era === "modern" ? { _meta: META } : {}) },
  };
}

/** rta mcp serve over stdio, spoken to a line at a time. */
function stdioServer() {
  const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "fronts"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
  });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let carry = "";
    for await (const chunk of proc.stdout) {
      carry += decoder.decode(chunk, { stream: true });
      const parts = carry.split("\n");
      carry = parts.pop() ?? "";
      lines.push(...parts);
      for (const wake of waiters.splice(0)) wake();
    }
    for (const wake of waiters.splice(0)) wake();
  })();
  return {
    proc,
    send(message: unknown) {
      proc.stdin.write(`${JSON.stringify(message)}\n`);
      proc.stdin.flush();
    },
    /** The answer line whose id is `id`. */
    async answer(id: string | number): Promise<string> {
      for (;;) {
        const found = lines.find((l) => (JSON.parse(l) as { id?: unknown }).id === id);
        if (found !== undefined) return found;
        if (proc.exitCode !== null) throw new Error("the server ended");
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async close() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}

describe("an answer is not many times its request", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`stdio, ${era}: a request that breaks the schema 300,000 times is answered in a few KiB`, async () => {
      const s = stdioServer();
      try {
        if (era === "legacy") {
          s.send(INITIALIZE);
          await s.answer("init");
          s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        }
        s.send(manyWrongArguments(era, 7));
        const line = await s.answer(7);
        const m = JSON.parse(line) as { error?: { code: number; message: string } };
        expect(m.error?.message).toContain("expected string");
        expect(line.length).toBeLessThan(16 * KiB);
        // and the session goes on
        s.send({ jsonrpc: "2.0", id: 8, method: "tools/list", params: era === "modern" ? { _meta: META } : {} });
        expect(JSON.parse(await s.answer(8)).result.tools.length).toBeGreaterThan(10);
      } finally {
        await s.close();
      }
    }, 30_000);
  }

  describe("over HTTP", () => {
    let srv: RunningHttp;
    let token = "";
    beforeAll(async () => {
      srv = await startHttp();
      token = await srv.token("alice");
    });
    afterAll(async () => {
      await srv.stop();
    });

    for (const era of ["legacy", "modern"] as const) {
      test(`${era}: a request that breaks the schema 300,000 times is answered in a few KiB`, async () => {
        const r = await fetch(srv.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
            "mcp-protocol-version": era === "legacy" ? "2025-11-25" : "2026-07-28",
            ...(era === "modern" ? { "mcp-method": "prompts/get", "mcp-name": "site_check" } : {}),
          },
          body: JSON.stringify(manyWrongArguments(era, 9)),
        });
        const text = await r.text();
        expect(text).toContain("expected string");
        expect(text.length).toBeLessThan(16 * KiB);
      }, 30_000);
    }
  });
});
