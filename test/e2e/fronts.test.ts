/**
 * End to end: what a hostile client can make the fronts of dist/rta mcp serve
 * hold, over stdio and HTTP. Each test is a hole an attack on the built binary
 * found: an answer many times the size of its request, and answers piling up
 * for a client that never reads them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, constants, createReadStream, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import type { Era } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";

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
 * A prompts/get whose arguments (a map of strings) hold `count` numbers: each
 * breaks the schema, and the schema's error names every one. At 300,000,
 * about 3 MiB.
 */
function manyWrongArguments(era: Era, id: number | string, count = 300_000): Record<string, unknown> {
  const args: Record<string, number> = {};
  for (let i = 0; i < count; i++) args[i.toString(36)] = 1;
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
    async answer(id: string | number | null): Promise<string> {
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
    test(`stdio, ${era}: a request that breaks the schema 9,000 times is answered in a few KiB; past 10,000 values it is refused`, async () => {
      const s = stdioServer();
      try {
        if (era === "legacy") {
          s.send(INITIALIZE);
          await s.answer("init");
          s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        }
        s.send(manyWrongArguments(era, 7, 9_000));
        const line = await s.answer(7);
        const m = JSON.parse(line) as { error?: { code: number; message: string } };
        expect(m.error?.message).toContain("expected string");
        expect(line.length).toBeLessThan(16 * KiB);
        // Past 10,000 values a request is refused before the schema is checked, a deep one as a wide one.
        const tooMany = { code: -32600, message: "the request holds more than 10000 values" };
        s.send(manyWrongArguments(era, 11));
        expect(JSON.parse(await s.answer(11))).toEqual({ jsonrpc: "2.0", id: 11, error: tooMany });
        let deep: unknown = [];
        for (let i = 0; i < 20_000; i++) deep = [deep];
        const args = { token: "a.b.c", x: deep };
        s.send({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "jwt_decode", arguments: args } });
        expect(JSON.parse(await s.answer(12))).toEqual({ jsonrpc: "2.0", id: 12, error: tooMany });
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

    const post = (era: Era, body: unknown) =>
      fetch(srv.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
          "mcp-protocol-version": era === "legacy" ? "2025-11-25" : "2026-07-28",
          ...(era === "modern" ? { "mcp-method": "prompts/get", "mcp-name": "site_check" } : {}),
        },
        body: JSON.stringify(body),
      });

    for (const era of ["legacy", "modern"] as const) {
      test(`${era}: a request holding more than 10,000 values is refused before the schema is checked`, async () => {
        // The SDK's schema check would build one issue per wrong member, holding the event loop a second a request.
        const r = await post(era, manyWrongArguments(era, 9));
        expect(r.status).toBe(400);
        const answer = (await r.json()) as { error: { code: number; message: string } };
        expect(answer.error).toEqual({ code: -32600, message: "the request holds more than 10000 values" });
        // Below the limit a request is served, and a schema's issues are cut to a few KiB.
        const few = manyWrongArguments(era, 10, 9_000);
        const served = await post(era, few);
        const text = await served.text();
        expect(text).toContain("expected string");
        expect(text.length).toBeLessThan(16 * KiB);
      }, 30_000);
    }
  });
});

describe("JSON that is not a JSON-RPC message, over stdio", () => {
  test("is answered -32600 with the request's id when one can be read, so its client does not wait for good", async () => {
    const s = stdioServer();
    try {
      s.send(INITIALIZE);
      await s.answer("init");
      s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      s.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: "oops" });
      s.send({ id: "six", method: "ping" });
      s.send({ jsonrpc: "2.0", id: 7, method: 7 }); // no method to read: answered with id null
      s.send({ jsonrpc: "2.0", id: 8, method: "ping" });
      const invalid = { code: -32600, message: "Invalid Request" };
      expect(JSON.parse(await s.answer(5))).toEqual({ jsonrpc: "2.0", id: 5, error: invalid });
      expect(JSON.parse(await s.answer("six"))).toEqual({ jsonrpc: "2.0", id: "six", error: invalid });
      expect(JSON.parse(await s.answer(null))).toEqual({ jsonrpc: "2.0", id: null, error: invalid });
      expect(JSON.parse(await s.answer(8))).toMatchObject({ id: 8, result: {} });
    } finally {
      await s.close();
    }
  });
});

describe("a stdio client that sends many calls at once", () => {
  test("has 32 served at a time; the rest wait their turn and are each answered", async () => {
    // Each call is an http_get this test's own server holds open until told to answer, so the calls the server
    // runs at once are the requests this server has open.
    let open = 0;
    let most = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const target = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        open++;
        most = Math.max(most, open);
        await released;
        open--;
        return new Response("ok");
      },
    });
    const data = tempDir();
    const config = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    expect(
      (await rta(["grant", "allow", "http.get", "--agent", "fronts", "--host", "127.0.0.1", "--ttl", "10m"], { env }))
        .code,
    ).toBe(0);
    const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "fronts"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "", HOME: data, ...env },
    });
    try {
      const count = 100;
      const call = (id: number) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "http_get", arguments: { url: `http://127.0.0.1:${target.port}/${id}` }, _meta: META },
        });
      proc.stdin.write(`${Array.from({ length: count }, (_, i) => call(i)).join("\n")}\n`);
      void Promise.resolve(proc.stdin.flush()).catch(() => {});
      // Wait until the server runs all it will at once: 32, or all 100 sent (it held for a second).
      for (let still = 0; still < 4 && open < count; ) {
        const before = open;
        await Bun.sleep(250);
        still = open === before && open > 0 ? still + 1 : 0;
      }
      expect(most).toBe(32);
      release();
      let lines = 0;
      for await (const chunk of proc.stdout) {
        for (const byte of chunk) if (byte === 0x0a) lines++;
        if (lines === count) break;
      }
      expect(lines).toBe(count);
      expect(most).toBe(32);
    } finally {
      release();
      proc.kill();
      await proc.exited;
      target.stop(true);
    }
  }, 60_000);
});

describe("a stdio client that does not read its answers", () => {
  const rssMiB = (pid: number) =>
    Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0) / 1024;

  test("is read no further until it does, and every request is answered once it reads", async () => {
    // A tools/list of 46 bytes is answered with about 30 KB: 10,000 of them are 300 MB of answers.
    const count = 10_000;
    // The answers go to a pipe of which this test holds both ends and reads nothing until the end: Bun would
    // read a subprocess's stdout pipe into its own memory as it came.
    const fifo = join(tempDir(), "answers");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const answers = openSync(fifo, constants.O_RDWR);
    const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "fronts"], {
      stdin: "pipe",
      stdout: answers,
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
    });
    try {
      const list = (id: number) =>
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: META } });
      proc.stdin.write(`${Array.from({ length: count }, (_, i) => list(i)).join("\n")}\n`);
      void Promise.resolve(proc.stdin.flush()).catch(() => {});
      // Nothing reads stdout meanwhile. Wait until the server stops growing (its most has held for a second),
      // or has plainly grown too much; what is asserted is memory, not time.
      const start = rssMiB(proc.pid);
      let most = start;
      for (let still = 0; still < 4 && most - start < 600; ) {
        await Bun.sleep(250);
        const now = rssMiB(proc.pid);
        still = now > most ? 0 : still + 1;
        most = Math.max(most, now);
      }
      console.log(`rss ${start.toFixed(0)} MiB at the start, at most ${most.toFixed(0)} MiB while nobody read`);
      expect(most - start).toBeLessThan(300);
      // Once the client reads, every request is answered: one line each.
      let lines = 0;
      for await (const chunk of createReadStream(fifo)) {
        for (const byte of chunk as Buffer) if (byte === 0x0a) lines++;
        if (lines === count) break;
      }
      expect(lines).toBe(count);
      proc.kill();
      // Each answer that waited for the client to read did not add a listener of its own, to be warned about.
      expect(await new Response(proc.stderr).text()).not.toContain("MaxListenersExceededWarning");
    } finally {
      proc.kill();
      await proc.exited;
      closeSync(answers);
    }
  }, 120_000);

  test("that goes away while its answers wait ends the session: the server writes its end line and exits", async () => {
    const fifo = join(tempDir(), "answers");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    // The server gets the write end only; once this test closes the read end, writing to it fails (EPIPE).
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const data = tempDir();
    const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "fronts"], {
      stdin: "pipe",
      stdout: writer,
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
    });
    closeSync(writer);
    const list = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: META } });
    proc.stdin.write(`${Array.from({ length: 3_000 }, (_, i) => list(i)).join("\n")}\n`);
    void Promise.resolve(proc.stdin.flush()).catch(() => {});
    // Wait until the server has stopped reading for want of a reader (its stdin holds what it has not read),
    // then go away: both ends close. The server must not wait on this client for good.
    await Bun.sleep(1_000);
    closeSync(reader);
    void Promise.resolve(proc.stdin.end()).catch(() => {});
    expect(await proc.exited).toBe(0);
    const record = readFileSync(join(data, "agent-log.jsonl"), "utf8");
    expect(record).toContain('"kind":"end"');
  }, 60_000);
});
