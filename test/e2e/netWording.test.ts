/**
 * End to end: what an agent is told when the network a call is handed
 * refuses it, word for word. The rules moved out of the capabilities into
 * the gate (gate/net/), and the grant check reads a host in one place: an
 * address in any spelling, a name with a final dot or in capitals, and each
 * capability that reaches a host, are refused in the same sentence with the
 * same command to run as before, naming the capability asked for. A redirect
 * the grant does not cover stops, said the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type DnsTestServer, startDnsServer } from "../support/dnsServer.ts";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

let dns: DnsTestServer;
let web: http.Server;
let port = 0;
let s: Connected;

beforeAll(async () => {
  dns = await startDnsServer({
    "a.test": { A: ["127.0.0.1"] },
    "b.test": { A: ["127.0.0.2"] },
    "six.test": { AAAA: ["::1"] },
  });
  web = http.createServer((q, res) => {
    const to = new URL(q.url ?? "/", "http://x").searchParams.get("to");
    if (to) res.writeHead(302, { location: to });
    res.end("from loopback");
  });
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", () => r()));
  port = (web.address() as AddressInfo).port;
  const data = tempDir();
  const config = tempDir();
  const areas = ["http", "net", "cert"].map((a) => `[defaults.${a}]\nserver = "${dns.address}"\n`);
  writeFileSync(join(config, "config.toml"), areas.join(""));
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  for (const grant of [["http.get"], ["net.port"], ["net.probe"], ["cert.expiry"], ["http.head", "--host", "a.test"]]) {
    const r = await rta(["grant", "allow", ...grant, "--agent", "claude", "--ttl", "10m"], { env });
    // piped, the grant's price is all stderr says
    expect(r.stderr).toStartWith(`a grant of ${grant[0]} for agent claude would cover:\n`);
    expect(r.stderr).not.toContain("rta: ");
  }
  s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
});
afterAll(async () => {
  await s.close();
  web.close();
  dns.close();
});

async function call(name: string, args: Record<string, unknown>) {
  return resultJson(await s.client.callTool({ name, arguments: args }));
}

const allow = (cap: string, host: string) =>
  `a person can allow it by running \`rta grant allow ${cap} --agent claude --ttl 5m --host ${host}\``;

describe("a grant for any host, and an address it does not name", () => {
  test("an address in any spelling is refused and named in its canonical form", async () => {
    const cases: [string, Record<string, unknown>, string, string, string][] = [
      ["http_get", { url: `http://2130706433:${port}/` }, "http.get", "127.0.0.1", "a loopback"],
      ["http_get", { url: `http://0x7f.1:${port}/` }, "http.get", "127.0.0.1", "a loopback"],
      ["http_get", { url: `http://[::ffff:127.0.0.1]:${port}/` }, "http.get", "::ffff:7f00:1", "a loopback"],
      ["http_get", { url: `http://0:${port}/` }, "http.get", "0.0.0.0", "an unspecified"],
      ["net_probe", { host: "[::1]", port }, "net.probe", "::1", "a loopback"],
      ["cert_expiry", { host: "0177.0.0.1", port }, "cert.expiry", "127.0.0.1", "a loopback"],
    ];
    for (const [tool, args, cap, host, kind] of cases) {
      expect({ tool, args, said: await call(tool, args) }).toEqual({
        tool,
        args,
        said: {
          type: "error",
          code: "core.grant.required",
          message: `${cap} needs a grant for agent claude naming ${host}, ${kind} address a grant for any host does not reach`,
          hint: allow(cap, host),
        },
      });
    }
  });

  test("a name that resolves to such an address is refused once it is resolved, in the name's plain spelling", async () => {
    const cases: [string, Record<string, unknown>, string, string, string][] = [
      ["http_get", { url: `http://B.TEST.:${port}/` }, "http.get", "b.test", "127.0.0.2"],
      ["net_port", { host: "A.Test.", ports: String(port) }, "net.port", "a.test", "127.0.0.1"],
      ["cert_expiry", { host: "six.test", port }, "cert.expiry", "six.test", "::1"],
    ];
    for (const [tool, args, cap, host, address] of cases) {
      expect({ tool, args, said: await call(tool, args) }).toEqual({
        tool,
        args,
        said: {
          type: "error",
          code: "net.destination.private",
          message: `${host} is at ${address}, a loopback address, which only a grant naming it may reach`,
          hint: allow(cap, host),
        },
      });
    }
  });
});

describe("a grant naming one host, and a redirect", () => {
  test("a redirect to another host or address stops, said as the grant not covering it; one to the same host in another spelling is followed", async () => {
    const from = (to: string) => `http://a.test:${port}/?to=${encodeURIComponent(to)}`;
    for (const [to, stopped] of [
      [`http://b.test:${port}/`, "b.test"],
      [`http://127.0.0.2:${port}/`, "127.0.0.2"],
      [`http://2130706433:${port}/`, "127.0.0.1"],
    ] as const) {
      const r = await call("http_head", { url: from(to) });
      expect({ to, value: r.value }).toMatchObject({
        to,
        value: { status: 302, redirect_stopped: `the redirect leads to ${stopped}, which the grant does not cover` },
      });
    }
    const same = await call("http_head", { url: from(`//A.TEST.:${port}/`) });
    expect(same.value).toMatchObject({ status: 200, final_url: `http://a.test.:${port}/`, address: "127.0.0.1" });
    expect(same.value).not.toHaveProperty("redirect_stopped");
  });
});
