/**
 * End to end: the network capabilities in the built binary, against servers
 * on 127.0.0.1, from the command line and over MCP under a grant naming the host.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";
import { type DnsTestServer, startDnsServer } from "../support/dnsServer.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

let dns: DnsTestServer;
let web: http.Server;
let port = 0;

beforeAll(async () => {
  dns = await startDnsServer({ "a.test": { A: ["127.0.0.1"], TXT: [["part one ", "part two"]] } });
  web = http.createServer((_q, res) => res.end("from a.test"));
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", () => r()));
  port = (web.address() as AddressInfo).port;
});
afterAll(() => {
  web.close();
  dns.close();
});

test("rta net dns from the command line, against the operator's DNS server", async () => {
  const r = await rta(["net", "dns", "a.test", "--type", "TXT", "--server", dns.address, "--json"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).value.answers[0].data).toBe("part one part two");
  const nx = await rta(["net", "dns", "nope.test", "--server", dns.address]);
  expect(nx.code).toBe(4);
  expect(nx.stderr).toContain("(net.dns.nxdomain)");
});

test("http_get over MCP: refused without a grant, then through one naming the host", async () => {
  const data = tempDir();
  const config = tempDir();
  writeFileSync(join(config, "config.toml"), `[defaults.http]\nserver = "${dns.address}"\n`);
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
  try {
    const refused = resultJson(
      await s.client.callTool({ name: "http_get", arguments: { url: `http://a.test:${port}/` } }),
    );
    expect(refused.code).toBe("core.grant.required");
    expect(refused.hint).toContain("--host a.test");
    expect(
      (await rta(["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "a.test"], { env })).code,
    ).toBe(0);
    const ok = resultJson(await s.client.callTool({ name: "http_get", arguments: { url: `http://a.test:${port}/` } }));
    expect(ok).toMatchObject({ type: "object", value: { status: 200, body: "from a.test", address: "127.0.0.1" } });
    const { tools } = await s.client.listTools();
    expect(tools.find((t) => t.name === "http_get")?.annotations?.openWorldHint).toBe(true);
    expect(Object.keys(tools.find((t) => t.name === "http_get")?.inputSchema.properties ?? {})).not.toContain("server");
  } finally {
    await s.close();
  }
});

/**
 * Serves `line` over and over after a padding the query asks for, so that the
 * cut of a large body falls across every character of a line, and checks that
 * no four characters of `word` are ever left in what the model is shown.
 */
async function expectCutNeverInside(line: string, word: string, data: string) {
  const config = tempDir();
  const reflect = http.createServer((q, res) => {
    const pad = Number(new URL(q.url ?? "/", "http://x").searchParams.get("pad"));
    res.setHeader("content-type", "text/plain");
    res.end(`${"p".repeat(pad)}\n${line.repeat(Math.ceil((300 * 1024) / line.length))}`);
  });
  await new Promise<void>((r) => reflect.listen(0, "127.0.0.1", () => r()));
  const at = (reflect.address() as AddressInfo).port;
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
  try {
    const args = ["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "127.0.0.1"];
    expect((await rta(args, { env })).code).toBe(0);
    for (let pad = 0; pad < line.length; pad++) {
      const r = resultJson(
        await s.client.callTool({ name: "http_get", arguments: { url: `http://127.0.0.1:${at}/?pad=${pad}` } }),
      );
      const body = (r.value as { body: string }).body;
      expect(body).toContain("bytes left out");
      const pieces = Array.from({ length: word.length - 3 }, (_, i) => word.slice(i, i + 4));
      expect(pieces.filter((p) => body.includes(p))).toEqual([]);
    }
  } finally {
    await s.close();
    reflect.close();
  }
}

test("http_get: a body cut for the model never ends inside a URL's userinfo", async () => {
  const secret = "Zq61Hp4Tw9";
  await expectCutNeverInside(`clone https://alice:${secret}@h.test/r\n`, secret, tempDir());
});

test("http_get: a body cut for the model never ends inside rta's data dir", async () => {
  const data = tempDir();
  await expectCutNeverInside(`state kept in ${data}\n`, basename(data), data);
});
