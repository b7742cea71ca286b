/**
 * End to end: which grant a call spends when several match. The narrowest one
 * that allows the call is spent; a broader grant that could not allow it keeps
 * its uses, which are the operator's for another call.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type DnsTestServer, startDnsServer } from "../support/dnsServer.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

let web: http.Server;
let port = 0;
let dns: DnsTestServer;

beforeAll(async () => {
  // A DNS stand-in that answers localhost names as a resolver following RFC 6761 would, so no query leaves.
  dns = await startDnsServer({ localhost: { A: ["127.0.0.1"] }, "app.localhost": { A: ["127.0.0.1"] } });
  web = http.createServer((_q, res) => res.end("from loopback"));
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", () => r()));
  port = (web.address() as AddressInfo).port;
});
afterAll(() => {
  web.close();
  dns.close();
});

function dirsEnv() {
  const data = tempDir();
  const config = tempDir();
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

async function allow(env: Record<string, string>, ...extra: string[]): Promise<string> {
  const r = await rta(["grant", "allow", "http.get", "--agent", "probe", "--json", ...extra], { env });
  // piped, the grant's price is all stderr says
  expect(r.stderr).toStartWith("a grant of http.get for agent probe would cover:\n");
  expect(r.stderr).not.toContain("rta: ");
  return JSON.parse(r.stdout).id as string;
}

async function uses(env: Record<string, string>): Promise<Record<string, number>> {
  const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout) as {
    grants: { id: string; uses: number }[];
  };
  return Object.fromEntries(listed.grants.map((g) => [g.id, g.uses]));
}

describe("the most specific grant wins", () => {
  for (const era of ["modern", "legacy"] as Era[]) {
    test(`${era}: with a hostless grant and one naming 127.0.0.1, a call to 127.0.0.1 spends the one naming it`, async () => {
      const { data, config, env } = dirsEnv();
      // The hostless grant ends sooner and was issued first: neither may make it the one spent.
      const hostless = await allow(env, "--ttl", "5m", "--max-uses", "3");
      const named = await allow(env, "--ttl", "10m", "--host", "127.0.0.1");
      const s = await connect(era, ["--agent", "probe"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      try {
        for (let i = 0; i < 2; i++) {
          const r = resultJson(
            await s.client.callTool({ name: "http_get", arguments: { url: `http://127.0.0.1:${port}/` } }),
          );
          expect(r).toMatchObject({ type: "object", value: { status: 200, body: "from loopback" } });
        }
      } finally {
        await s.close();
      }
      expect(await uses(env)).toEqual({ [hostless]: 0, [named]: 2 });
    });
  }

  test("a hostless grant alone is not spent on a loopback address; the refusal names the grant that would allow it", async () => {
    const { data, config, env } = dirsEnv();
    const hostless = await allow(env, "--ttl", "5m", "--max-uses", "1");
    const s = await connect("modern", ["--agent", "probe"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      for (const url of [`http://127.0.0.1:${port}/`, `http://127.1:${port}/`, `http://[::1]:${port}/`]) {
        const r = resultJson(await s.client.callTool({ name: "http_get", arguments: { url } }));
        expect(r.code).toBe("core.grant.required");
        expect(r.message).toContain("loopback address");
        expect(r.hint).toContain("--host ");
      }
    } finally {
      await s.close();
    }
    expect(await uses(env)).toEqual({ [hostless]: 0 });
  });
});

describe("localhost is loopback before it is looked up", () => {
  test("a hostless grant is not spent on localhost, in any spelling, nor is the name looked up; a grant naming it allows it", async () => {
    const { data, config, env } = dirsEnv();
    writeFileSync(join(config, "config.toml"), `[defaults.http]\nserver = "${dns.address}"\n`);
    const hostless = await allow(env, "--ttl", "5m", "--max-uses", "1");
    const s = await connect("modern", ["--agent", "probe"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      for (const host of ["localhost", "LocalHost.", "app.localhost"]) {
        const r = resultJson(
          await s.client.callTool({ name: "http_get", arguments: { url: `http://${host}:${port}/` } }),
        );
        expect({ host, code: r.code }).toEqual({ host, code: "core.grant.required" });
        expect(r.message).toContain("loopback address");
        expect(r.hint).toContain(`--host ${host.toLowerCase().replace(/\.$/, "")}`);
      }
      expect(dns.queries).toEqual([]);
      expect(await uses(env)).toEqual({ [hostless]: 0 });
      const named = await allow(env, "--ttl", "5m", "--host", "localhost");
      const r = resultJson(
        await s.client.callTool({ name: "http_get", arguments: { url: `http://localhost:${port}/` } }),
      );
      expect(r).toMatchObject({ type: "object", value: { status: 200, body: "from loopback" } });
      expect(await uses(env)).toEqual({ [hostless]: 0, [named]: 1 });
    } finally {
      await s.close();
    }
  });
});

describe("spending stays atomic across processes", () => {
  test("four servers sharing a data dir, 200 concurrent calls: the named grant's 50 uses are spent exactly, the hostless grant's none", async () => {
    const { data, config, env } = dirsEnv();
    const hostless = await allow(env, "--ttl", "5m", "--max-uses", "50");
    const named = await allow(env, "--ttl", "10m", "--max-uses", "50", "--host", "127.0.0.1");
    const servers = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        connect(i % 2 ? "legacy" : "modern", ["--agent", "probe"], { dataDir: data, env: { RTA_CONFIG_DIR: config } }),
      ),
    );
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (servers[i % 4] as (typeof servers)[number]).client.callTool({
            name: "http_get",
            arguments: { url: `http://127.0.0.1:${port}/${i}` },
          }),
        ),
      );
      const codes = results.map((r) => (r.isError ? (resultJson(r).code as string) : "ok"));
      expect(codes.filter((c) => c === "ok")).toHaveLength(50);
      expect(codes.filter((c) => c === "core.grant.required")).toHaveLength(150);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
    expect(await uses(env)).toEqual({ [hostless]: 0, [named]: 50 });
  }, 60_000);
});
