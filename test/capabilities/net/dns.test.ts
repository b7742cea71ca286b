import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import { reverseName } from "../../../src/capabilities/net/dns.ts";
import { person } from "../../../src/core/call.ts";
import { query, systemServers } from "../../../src/gate/net/resolver.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { type DnsTestServer, startDnsServer } from "../../support/dnsServer.ts";
import { testDeps, tree } from "../../support/fixtures.ts";

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer(
    {
      "a.test": {
        A: ["127.0.0.2"],
        AAAA: ["::1"],
        MX: [{ preference: 10, exchange: "mail.a.test" }],
        TXT: [["v=spf1 include:_spf.a.test ", "-all"], ["hello"]],
        CAA: [{ flags: 0, tag: "issue", value: "ca.test" }],
        SOA: [{ mname: "ns.a.test", rname: "host.a.test", serial: 7, refresh: 1, retry: 2, expire: 3, minimum: 4 }],
      },
      "big.test": { TXT: [["x".repeat(200)], ["y".repeat(200)], ["z".repeat(200)]] },
      "2.0.0.127.in-addr.arpa": { PTR: ["a.test"] },
    },
    ["big.test"],
  );
});
afterAll(() => dns.close());

async function lookup(name: string, type: string): Promise<unknown> {
  const out = await runCall(
    { capability: "net.dns", args: { name, type, server: dns.address }, origin: person },
    builtinCatalogue(),
    testDeps(),
  );
  return out.ok ? out.value : { code: out.error.code, message: out.error.message };
}

describe("net.dns against a DNS server on 127.0.0.1", () => {
  test("A, MX, CAA and SOA come back as records", async () => {
    expect(await lookup("a.test", "A")).toEqual({
      type: "object",
      value: {
        name: "a.test",
        type: "A",
        status: "NOERROR",
        answers: [{ name: "a.test", type: "A", ttl: 300, data: "127.0.0.2" }],
      },
    });
    expect(await lookup("a.test", "MX")).toMatchObject({ value: { answers: [{ data: "10 mail.a.test" }] } });
    expect(await lookup("a.test", "CAA")).toMatchObject({ value: { answers: [{ data: '0 issue "ca.test"' }] } });
    expect(await lookup("a.test", "SOA")).toMatchObject({
      value: { answers: [{ data: "ns.a.test host.a.test 7 1 2 3 4" }] },
    });
  });

  test("a multi-string TXT record is one record, its strings joined", async () => {
    const txt = (await lookup("a.test", "TXT")) as { value: { answers: { data: string }[] } };
    expect(txt.value.answers.map((a) => a.data)).toEqual(["v=spf1 include:_spf.a.test -all", "hello"]);
  });

  test("NXDOMAIN and NODATA are told apart", async () => {
    expect(await lookup("nope.test", "A")).toMatchObject({
      code: "net.dns.nxdomain",
      message: "nope.test does not exist (NXDOMAIN)",
    });
    expect(await lookup("a.test", "SRV")).toMatchObject({ value: { status: "NODATA", answers: [] } });
  });

  test("a truncated UDP answer is asked again over TCP", async () => {
    const before = dns.queries.length;
    const big = (await lookup("big.test", "TXT")) as { value: { answers: unknown[] } };
    expect(big.value.answers).toHaveLength(3);
    expect(dns.queries.slice(before).map((q) => q.over)).toEqual(["udp", "tcp"]);
  });

  test("PTR takes an address", async () => {
    expect(reverseName("127.0.0.2")).toBe("2.0.0.127.in-addr.arpa");
    expect(reverseName("2001:db8::1")).toBe("1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa");
    expect(await lookup("127.0.0.2", "PTR")).toMatchObject({ value: { answers: [{ data: "a.test" }] } });
  });

  test("a name DNS cannot take is refused before any packet is sent", async () => {
    const before = dns.queries.length;
    expect(await lookup("-bad..name", "A")).toMatchObject({ code: "net.badhost" });
    expect(dns.queries.length).toBe(before);
  });

  test("a server that does not answer times out", async () => {
    await expect(query("a.test", "A", [{ host: "127.0.0.1", port: 9 }], 200)).rejects.toMatchObject({
      code: "net.dns.timeout",
    });
  });

  test("the system's servers come from resolv.conf", () => {
    const file = `${tree({ "resolv.conf": "# c\nnameserver 127.0.0.53\nnameserver ::1\noptions edns0\nnameserver bogus\n" })}/resolv.conf`;
    expect(systemServers(file)).toEqual([
      { host: "127.0.0.53", port: 53 },
      { host: "::1", port: 53 },
    ]);
  });
});
