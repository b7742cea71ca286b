/**
 * audit.web and audit.mail, each against a known-good and a known-bad fixture
 * served on 127.0.0.1 (DNS, HTTP and HTTPS with a CA made at test time).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import { type AgentOrigin, type Origin, person } from "../../../src/core/call.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { type DnsTestServer, startDnsServer } from "../../support/dnsServer.ts";
import { grantFor, testDeps } from "../../support/fixtures.ts";
import { makeCa, type TestCa } from "../../support/testCa.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
let dns: DnsTestServer;
let ca: TestCa;
const servers: { close(): void }[] = [];
const port: Record<string, number> = {};

async function listen(name: string, s: http.Server) {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  servers.push(s);
  port[name] = (s.address() as AddressInfo).port;
}

beforeAll(async () => {
  ca = makeCa(["good.test", "bad.test", "mta-sts.good.test"], 90);
  const tls = { key: ca.key, cert: ca.cert };
  await listen(
    "goodHttp",
    http.createServer((req, res) =>
      res.writeHead(301, { location: `https://good.test:${port.goodHttps}${req.url}` }).end(),
    ),
  );
  await listen(
    "goodHttps",
    https.createServer(tls, (req, res) => {
      if (req.url === "/.well-known/mta-sts.txt")
        return res
          .writeHead(200, { "content-type": "text/plain" })
          .end("version: STSv1\nmode: enforce\nmx: mx.good.test\nmax_age: 86400\n");
      res
        .writeHead(200, {
          "strict-transport-security": "max-age=31536000; includeSubDomains",
          "content-security-policy": "default-src 'self'; frame-ancestors 'none'",
          "x-content-type-options": "nosniff",
          "set-cookie": ["sid=1; Secure; HttpOnly; SameSite=Lax; Expires=Wed, 21 Oct 2026 07:28:00 GMT"],
          server: "nginx",
        })
        .end("good");
    }),
  );
  await listen(
    "badHttp",
    http.createServer((_q, res) => res.end("plain")),
  );
  await listen(
    "badHttps",
    https.createServer(tls, (_q, res) =>
      res
        .writeHead(200, {
          server: "Apache/2.4.41 (Ubuntu)",
          "x-powered-by": "PHP/7.4.3",
          "set-cookie": ["PHPSESSID=abc; path=/"],
        })
        .end("bad"),
    ),
  );
  const includes = Object.fromEntries(
    Array.from({ length: 11 }, (_, i) => [`i${i}.bad.test`, { TXT: [["v=spf1 -all"]] }]),
  );
  dns = await startDnsServer({
    "good.test": {
      A: ["127.0.0.1"],
      MX: [{ preference: 10, exchange: "mx.good.test" }],
      TXT: [["v=spf1 include:_spf.good.test -all"]],
    },
    "_spf.good.test": { TXT: [["v=spf1 ip4:192.0.2.0/24 -all"]] },
    "_dmarc.good.test": { TXT: [["v=DMARC1; p=reject; rua=mailto:d@good.test"]] },
    "s1._domainkey.good.test": { TXT: [["v=DKIM1; k=rsa; p=MIIBIjANBgkq"]] },
    "_mta-sts.good.test": { TXT: [["v=STSv1; id=20261130"]] },
    "mta-sts.good.test": { A: ["127.0.0.1"] },
    "_smtp._tls.good.test": { TXT: [["v=TLSRPTv1; rua=mailto:t@good.test"]] },
    "bad.test": {
      A: ["127.0.0.1"],
      TXT: [[`v=spf1 ${Array.from({ length: 11 }, (_, i) => `include:i${i}.bad.test`).join(" ")} ~all`]],
    },
    "_dmarc.bad.test": { TXT: [["v=DMARC1; p=none"]] },
    ...includes,
  });
});
afterAll(() => {
  for (const s of servers) s.close();
  dns.close();
});

async function audit(
  tool: string,
  host: string,
  args: Record<string, unknown>,
  origin: Origin = agent,
): Promise<Record<string, [string, string]>> {
  const deps = testDeps();
  mkdirSync(deps.dirs.config, { recursive: true });
  writeFileSync(
    join(deps.dirs.config, "config.toml"),
    `[defaults.audit]\nserver = "${dns.address}"\nca_file = "${ca.caFile}"\n`,
  );
  grantFor(deps, { target: "audit", host });
  const out = await runCall(
    { capability: origin.kind === "person" ? tool.replace("_", ".") : tool, args, origin },
    builtinCatalogue(),
    deps,
  );
  if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
  const rows = (out.value as { rows: string[][] }).rows;
  return Object.fromEntries(rows.map((r) => [r[0] as string, [r[1] as string, r[2] as string]]));
}

describe("audit.web", () => {
  test("a known-good server: every check ok", async () => {
    const f = await audit("audit_web", "good.test", {
      host: "good.test",
      http_port: port.goodHttp,
      https_port: port.goodHttps,
    });
    expect(Object.fromEntries(Object.entries(f).map(([k, [sev]]) => [k, sev]))).toEqual({
      "https redirect": "ok",
      "tls version": "ok",
      certificate: "ok",
      hsts: "ok",
      csp: "ok",
      "x-content-type-options": "ok",
      framing: "ok",
      cookie: "ok",
      "version disclosure": "ok",
    });
  });

  test("a known-bad server: each weakness found, with its severity", async () => {
    const f = await audit("audit_web", "bad.test", {
      host: "bad.test",
      http_port: port.badHttp,
      https_port: port.badHttps,
    });
    expect(f["https redirect"]?.[0]).toBe("medium");
    expect(f.hsts).toEqual(["medium", "no Strict-Transport-Security header"]);
    expect(f.csp?.[0]).toBe("low");
    expect(f["x-content-type-options"]?.[0]).toBe("low");
    expect(f.framing?.[0]).toBe("low");
    expect(f.cookie).toEqual(["medium", "cookie PHPSESSID lacks Secure, HttpOnly, SameSite"]);
    expect(f["version disclosure"]).toEqual(["low", "the server names its version: Apache/2.4.41 (Ubuntu), PHP/7.4.3"]);
  });
});

describe("audit.mail", () => {
  test("a known-good domain: MX, SPF, DMARC, DKIM, MTA-STS and TLS-RPT all ok", async () => {
    const f = await audit(
      "audit_mail",
      "good.test",
      {
        domain: "good.test",
        selectors: "s1",
        https_port: port.goodHttps,
      },
      person,
    );
    expect(Object.fromEntries(Object.entries(f).map(([k, [sev]]) => [k, sev]))).toEqual({
      mx: "ok",
      spf: "ok",
      dmarc: "ok",
      "dkim s1": "ok",
      "mta-sts": "ok",
      "tls-rpt": "ok",
    });
    expect(f.spf?.[1]).toBe("SPF ends in -all, 1 lookup of 10");
  });

  test("an agent's grant for the domain does not stretch to the policy host on a private address", async () => {
    const f = await audit("audit_mail", "good.test", {
      domain: "good.test",
      selectors: "s1",
      https_port: port.goodHttps,
    });
    expect(f.mx?.[0]).toBe("ok");
    expect(f["mta-sts"]?.[0]).not.toBe("ok");
  });

  test("a domain that is not a bare host name is refused before any lookup", async () => {
    const deps = testDeps();
    const out = await runCall(
      { capability: "audit.mail", args: { domain: "evil.com://example.test/.evil.com" }, origin: person },
      builtinCatalogue(),
      deps,
    );
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.code).toBe("net.badhost");
  });

  test("a known-bad domain: no MX, SPF past ten lookups, DMARC p=none, no DKIM, no MTA-STS, no TLS-RPT", async () => {
    const f = await audit("audit_mail", "bad.test", { domain: "bad.test", selectors: "s1" });
    expect(f.mx?.[0]).toBe("high");
    expect(f.spf).toEqual(["high", "SPF needs 11 DNS lookups, past the limit of 10: receivers fail it (permerror)"]);
    expect(f.dmarc?.[0]).toBe("medium");
    expect(f["dmarc reports"]?.[0]).toBe("info");
    expect(f["dkim s1"]?.[0]).toBe("medium");
    expect(f["mta-sts"]?.[0]).toBe("low");
    expect(f["tls-rpt"]?.[0]).toBe("info");
  });
});
