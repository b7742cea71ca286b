/**
 * End to end: rta mcp serve --http, spoken to by the official client over
 * Streamable HTTP on both eras, and by hand for what a client would not send.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

let srv: RunningHttp;
let root = "";
let claude = "";
let cursor = "";
const data = tempDir();
const config = tempDir();

beforeAll(async () => {
  root = tempDir();
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs", "a.txt"), "hello");
  srv = await startHttp(["--root", root], { data, config });
  claude = await srv.token("claude");
  cursor = await srv.token("cursor");
});
afterAll(async () => {
  await srv.stop();
});

async function client(token: string, era: "legacy" | "modern", name = "http-e2e"): Promise<Client> {
  const c = new Client(
    { name, version: "1" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await c.connect(
    new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

const init = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const post = (headers: Record<string, string>, body: string | Uint8Array = init) =>
  fetch(srv.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });

describe("both eras over HTTP", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: tools, a call, resources and prompts`, async () => {
      const c = await client(claude, era);
      try {
        expect(c.getProtocolEra()).toBe(era);
        const { tools } = await c.listTools();
        expect(tools.map((t) => t.name)).toContain("fs_read");
        // a grant's command names the agent the token names, whatever the client calls itself
        expect(tools.find((t) => t.name === "fs_write")?.description).toContain(
          "`rta grant allow fs.write --agent claude --ttl 5m`",
        );
        expect(resultJson(await c.callTool({ name: "fs_read", arguments: { path: "docs/a.txt" } }))).toEqual({
          type: "text",
          text: "hello",
        });
        expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(["mail_check", "site_check"]);
        const uris = (await c.listResources()).resources.map((r) => r.uri);
        expect(uris[0]).toBe("rta://grants");
        expect(uris).toContain("rta://sys/info");
        // a read as its template, over HTTP too: the tool's answer
        const read = await c.readResource({ uri: "rta://fs/read/docs%2Fa.txt" });
        expect(read.contents).toEqual([{ uri: "rta://fs/read/docs%2Fa.txt", mimeType: "text/plain", text: "hello" }]);
      } finally {
        await c.close();
      }
    });
  }
});

describe("tokens", () => {
  test("a missing, a wrong, a non-Bearer and a revoked token get 401 and nothing else", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer rta_wrong-token-value" },
      { authorization: claude },
      { authorization: `Basic ${claude}` },
    ] as Record<string, string>[]) {
      const r = await post(headers);
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "unauthorized" } });
    }
    const doomed = await srv.token("doomed");
    expect((await post({ authorization: `Bearer ${doomed}` })).status).toBe(200);
    expect((await rta(["mcp", "token", "revoke", "--agent", "doomed"], { env: srv.env })).code).toBe(0);
    expect((await post({ authorization: `Bearer ${doomed}` })).status).toBe(401);
  });

  test("the token names the agent: a token for claude cannot spend a grant issued to cursor", async () => {
    expect((await rta(["grant", "allow", "note.add", "--agent", "cursor", "--ttl", "5m"], { env: srv.env })).code).toBe(
      0,
    );
    const asClaude = await client(claude, "modern", "cursor"); // it calls itself cursor; its token says claude
    try {
      const r = resultJson(await asClaude.callTool({ name: "note_add", arguments: { title: "t", body: "b" } }));
      expect(r.code).toBe("core.grant.required");
      expect(r.message).toBe("note.add needs a grant for agent claude");
    } finally {
      await asClaude.close();
    }
    const asCursor = await client(cursor, "legacy");
    try {
      expect((await asCursor.callTool({ name: "note_add", arguments: { title: "t", body: "b" } })).isError).toBeFalsy();
    } finally {
      await asCursor.close();
    }
  });
});

describe("Host and Origin", () => {
  test("a bad Host or a bad Origin gets 403; loopback ones pass", async () => {
    const auth = { authorization: `Bearer ${claude}` };
    expect((await post({ ...auth, host: "evil.example" })).status).toBe(403);
    expect((await post({ ...auth, host: `evil.example:${srv.port}` })).status).toBe(403);
    expect((await post({ ...auth, origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ ...auth, origin: `http://localhost:${srv.port}` })).status).toBe(200);
    expect((await post({ ...auth, host: `localhost:${srv.port}` })).status).toBe(200);
  });

  test("a Host that is no host name at all is a 4xx, never a 500", async () => {
    const { connect } = await import("node:net");
    for (const host of ["[::1", "a b", "%zz"]) {
      const reply = await new Promise<string>((resolve) => {
        const sock = connect(srv.port, "127.0.0.1", () => {
          sock.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        });
        let out = "";
        sock.on("data", (d) => {
          out += d.toString();
        });
        sock.on("close", () => resolve(out));
        sock.on("error", () => resolve(out));
        setTimeout(() => sock.destroy(), 3000);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(reply).not.toContain("bunfs");
    }
  });
});

describe("request bodies", () => {
  const big = () => new Uint8Array(5 * 1024 * 1024).fill(0x20);

  test("a 5 MiB body sent chunked is refused with 413 once the token has passed", async () => {
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          const chunk = big();
          for (let i = 0; i < chunk.length; i += 64 * 1024) c.enqueue(chunk.subarray(i, i + 64 * 1024));
          c.close();
        },
      });
    const send = (headers: Record<string, string>) =>
      fetch(srv.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: stream() });
    // With no token, nothing of the body is read: the answer is the token's.
    expect((await send({})).status).toBe(401);
    const r = await send({ authorization: `Bearer ${claude}` });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain("4 MiB");
  });

  test("a 5 MiB body with a Content-Length is refused with 413", async () => {
    const r = await post({ authorization: `Bearer ${claude}` }, big());
    expect(r.status).toBe(413);
  });

  test("a Content-Length that claims less than is sent does not let more through", async () => {
    const { connect } = await import("node:net");
    const reply = await new Promise<string>((resolve) => {
      const sock = connect(srv.port, "127.0.0.1", () => {
        sock.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${claude}\r\nContent-Length: 20\r\n\r\n`,
        );
        sock.write(Buffer.alloc(5 * 1024 * 1024, 0x7b));
      });
      let out = "";
      sock.on("data", (d) => {
        out += d.toString();
      });
      sock.on("close", () => resolve(out));
      sock.on("error", () => resolve(out));
      setTimeout(() => sock.destroy(), 3000);
    });
    // The 20 bytes it declared are read as the request (and are not JSON-RPC); the rest is never read as a body.
    expect(reply).not.toContain('"result"');
  });
});

describe("probes", () => {
  test("/healthz and /readyz need no token and say nothing else", async () => {
    const h = await fetch(`http://127.0.0.1:${srv.port}/healthz`);
    expect([h.status, await h.text()]).toEqual([200, "ok\n"]);
    const r = await fetch(`http://127.0.0.1:${srv.port}/readyz`);
    expect([r.status, await r.text()]).toEqual([200, "ready\n"]);
  });
});

describe("what a remote server hides", () => {
  test("no instructions, listing, result or error names the roots, the data dir or the config dir", async () => {
    const seen: string[] = [];
    for (const era of ["legacy", "modern"] as const) {
      const c = await client(claude, era);
      try {
        seen.push(
          c.getInstructions() ?? "",
          JSON.stringify(await c.listTools()),
          JSON.stringify(await c.listResources()),
        );
        for (const [name, args] of [
          ["fs_list", { path: "." }],
          ["fs_stat", { path: "docs" }],
          ["fs_tree", { path: "." }],
          ["fs_read", { path: "missing.txt" }],
          ["fs_list", { path: "../" }],
          ["note_list", {}],
          ["agent_log", {}],
        ] as [string, Record<string, unknown>][]) {
          seen.push(JSON.stringify(await c.callTool({ name, arguments: args }).catch((e: Error) => e.message)));
        }
        seen.push(JSON.stringify(await c.readResource({ uri: "rta://grants" })));
      } finally {
        await c.close();
      }
    }
    const all = seen.join("\n");
    for (const place of [root, data, config]) expect(all).not.toContain(place);
    expect(srv.stderr()).toContain(`path arguments confined to: ${root}`); // the person is told, on the server's stderr
  });
});

describe("the banner", () => {
  test("a server with no live token says so, with the command that makes one", async () => {
    const s = await startHttp();
    try {
      for (let i = 0; i < 100 && !s.stderr().includes("no tokens yet"); i++) await Bun.sleep(20);
      expect(s.stderr()).toContain("make one with `rta mcp token new --agent NAME`");
    } finally {
      await s.stop();
    }
  });
});

describe("--allow-host", () => {
  test("adds a host name to the ones Host and Origin may carry, and no other", async () => {
    const s = await startHttp(["--allow-host", "rta.example"]);
    try {
      const token = await s.token("claude");
      const send = (headers: Record<string, string>) =>
        fetch(s.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
            ...headers,
          },
          body: init,
        });
      expect((await send({ host: "rta.example" })).status).toBe(200);
      expect((await send({ host: `rta.example:${s.port}`, origin: "https://rta.example" })).status).toBe(200);
      expect((await send({ host: "other.example" })).status).toBe(403);
      expect((await send({ origin: "https://rta.example.evil.test" })).status).toBe(403);
    } finally {
      await s.stop();
    }
  });
});
