import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import { parsePorts } from "../../../src/capabilities/net/port.ts";
import type { AgentOrigin } from "../../../src/core/call.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { type DnsTestServer, startDnsServer } from "../../support/dnsServer.ts";
import { grantFor, testDeps } from "../../support/fixtures.ts";
import { makeCa, type TestCa } from "../../support/testCa.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
let dns: DnsTestServer;
let ca: TestCa;
let tls: https.Server;
let tlsPort = 0;
let closedPort = 0;

beforeAll(async () => {
  ca = makeCa(["a.test"], 20);
  tls = https.createServer({ key: ca.key, cert: ca.cert }, (_q, r) => r.end("ok"));
  await new Promise<void>((r) => tls.listen(0, "127.0.0.1", () => r()));
  tlsPort = (tls.address() as AddressInfo).port;
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  dns = await startDnsServer({ "a.test": { A: ["127.0.0.1"] }, "b.test": { A: ["127.0.0.1"] } });
});
afterAll(() => {
  tls.close();
  dns.close();
});

function setup(hosts: string[], area: string, withCa = true) {
  const deps = testDeps();
  mkdirSync(deps.dirs.config, { recursive: true });
  writeFileSync(
    join(deps.dirs.config, "config.toml"),
    `[defaults.${area}]\nserver = "${dns.address}"\n${withCa ? `ca_file = "${ca.caFile}"\n` : ""}`,
  );
  for (const host of hosts) grantFor(deps, { target: area, host });
  return deps;
}

async function call(
  deps: ReturnType<typeof setup>,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const out = await runCall({ capability: tool, args, origin: agent }, builtinCatalogue(), deps);
  if (!out.ok) return { code: out.error.code, message: out.error.message };
  return out.value.type === "object" ? out.value.value : (out.value as unknown as Record<string, unknown>);
}

describe("cert.expiry", () => {
  test("the chain with names and days left, trusted through the operator's CA, matching its name", async () => {
    const r = await call(setup(["a.test"], "cert"), "cert_expiry", { host: "a.test", port: tlsPort });
    expect(r).toMatchObject({ host: "a.test", trusted: true, matches_name: true, address: "127.0.0.1" });
    expect(r.days_left as number).toBeGreaterThanOrEqual(18);
    expect(r.days_left as number).toBeLessThanOrEqual(20);
    const chain = r.chain as { subject: string; issuer: string; names: string[] }[];
    expect(chain[0]).toMatchObject({ subject: "a.test", issuer: "rta test CA", names: ["a.test"] });
    expect(String(r.protocol)).toMatch(/^TLSv1\.[23]$/);
  });

  test("another name on the same certificate does not match; without the CA it is not trusted", async () => {
    expect(await call(setup(["b.test"], "cert"), "cert_expiry", { host: "b.test", port: tlsPort })).toMatchObject({
      matches_name: false,
      trusted: true,
    });
    const untrusted = await call(setup(["a.test"], "cert", false), "cert_expiry", { host: "a.test", port: tlsPort });
    expect(untrusted).toMatchObject({ trusted: false, trust_error: expect.stringMatching(/CERT|certificate|verify/i) });
  });

  test("a port that does not speak TLS is said so", async () => {
    expect((await call(setup(["a.test"], "cert"), "cert_expiry", { host: "a.test", port: closedPort })).code).toBe(
      "net.unreachable",
    );
  });
});

describe("net.port", () => {
  test("open and closed ports, each with how long it took", async () => {
    const t = await call(setup(["a.test"], "net"), "net_port", { host: "a.test", ports: `${tlsPort},${closedPort}` });
    expect(t.rows).toEqual([
      [tlsPort, "open", expect.any(Number)],
      [closedPort, "closed", expect.any(Number)],
    ]);
  });

  test("a bad port list is refused as one, before the host is looked up", async () => {
    const r = await call(setup(["nowhere.test"], "net"), "net_port", { host: "nowhere.test", ports: "22,http" });
    expect(r.code).toBe("core.input.invalid");
  });

  test("a port list is numbers, at most 64, no duplicates", () => {
    expect(parsePorts("22, 80,443,80")).toEqual([22, 80, 443]);
    expect(() => parsePorts("22,http")).toThrow(/ports must be/);
    expect(() => parsePorts("0")).toThrow();
    expect(() => parsePorts(Array.from({ length: 65 }, (_, i) => i + 1).join(","))).toThrow();
  });
});
