/**
 * http.get and http.head against real servers on 127.0.0.1: a DNS server for
 * the test names, HTTP and HTTPS servers with a CA made at test time, a
 * redirect to another host, a slow server and a 5 MiB body.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin, Call } from "../../../src/core/call.ts";
import { person } from "../../../src/core/call.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { type DnsTestServer, startDnsServer } from "../../support/dnsServer.ts";
import { grantFor, testDeps } from "../../support/fixtures.ts";
import { makeCa, type TestCa } from "../../support/testCa.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
let dns: DnsTestServer;
let ca: TestCa;
let port = 0; // the same port on 127.0.0.1 (the right one) and 127.0.0.2 (the one a moved DNS answer points at)
let tlsPort = 0;
const hits: string[] = [];
const servers: { close(): void }[] = [];
let lookups = 0;

function handler(who: string): http.RequestListener {
  return (req, res) => {
    hits.push(`${who} ${req.headers.host}${req.url}`);
    if (req.url === "/redirect-other") return res.writeHead(302, { location: `http://b.test:${port}/landed` }).end();
    if (req.url === "/redirect-same") return res.writeHead(301, { location: "/landed" }).end();
    if (req.url === "/slow") return setTimeout(() => res.end("late"), 3000);
    if (req.url === "/stall") {
      res.writeHead(200, { "content-length": "100" });
      res.write("x");
      return setTimeout(() => res.destroy(), 3000);
    }
    if (req.url === "/big")
      return res
        .writeHead(200, { "content-type": "text/plain", "content-length": String(5 * 1024 * 1024) })
        .end("z".repeat(5 * 1024 * 1024));
    res
      .writeHead(200, { "content-type": "text/plain", "set-cookie": "sid=abc123; HttpOnly", server: "test/1.0" })
      .end(`${who} says hello to ${req.headers.host}`);
  };
}

async function listen(server: http.Server | https.Server, host: string, at = 0): Promise<number> {
  await new Promise<void>((r) => server.listen(at, host, () => r()));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  ca = makeCa(["a.test", "b.test"]);
  port = await listen(http.createServer(handler("right")), "127.0.0.1");
  await listen(http.createServer(handler("WRONG")), "127.0.0.2", port);
  tlsPort = await listen(https.createServer({ key: ca.key, cert: ca.cert }, handler("tls")), "127.0.0.1");
  dns = await startDnsServer({
    "a.test": { A: ["127.0.0.1"] },
    "b.test": { A: ["127.0.0.1"] },
    // The first lookup is answered with the right address, every later one with another.
    "moving.test": { A: () => [lookups++ === 0 ? "127.0.0.1" : "127.0.0.2"] },
    "meta.test": { A: ["169.254.169.254"] },
  });
});
afterAll(() => {
  for (const s of servers) s.close();
  dns.close();
});

function setup(grants: { host: string | null; target?: string }[] = [], withCa = true) {
  const deps = testDeps();
  mkdirSync(deps.dirs.config, { recursive: true });
  const lines = [`server = "${dns.address}"`, ...(withCa ? [`ca_file = "${ca.caFile}"`] : [])];
  writeFileSync(join(deps.dirs.config, "config.toml"), `[defaults.http]\n${lines.join("\n")}\n`);
  for (const g of grants) {
    grantFor(deps, { target: g.target ?? "http", host: g.host });
  }
  return deps;
}

async function get(
  deps: ReturnType<typeof setup>,
  args: Record<string, unknown>,
  tool = "http_get",
  origin: Call["origin"] = agent,
): Promise<Record<string, unknown>> {
  const capability = origin.kind === "agent" ? tool : tool.replace("_", ".");
  const out = await runCall({ capability, args, origin }, builtinCatalogue(), deps);
  return out.ok
    ? ((out.value as { value: Record<string, unknown> }).value ?? {})
    : { code: out.error.code, message: out.error.message, hint: out.error.hint };
}

describe("http.get", () => {
  test("status, headers, timing and body, through a grant that names the host", async () => {
    const r = await get(setup([{ host: "a.test" }]), { url: `http://a.test:${port}/` });
    expect(r).toMatchObject({
      status: 200,
      address: "127.0.0.1",
      body: `right says hello to a.test:${port}`,
      hops: [{ status: 200 }],
    });
    expect((r.headers as Record<string, string>)["set-cookie"]).toBe("***"); // masked for the agent
    expect(r.timing).toMatchObject({
      connect_ms: expect.any(Number),
      headers_ms: expect.any(Number),
      total_ms: expect.any(Number),
    });
  });

  test("the pin: a name is resolved once, and the whole call goes to that address", async () => {
    lookups = 0;
    hits.length = 0;
    const r = await get(setup([{ host: "moving.test" }]), { url: `http://moving.test:${port}/redirect-same` });
    expect(r.status).toBe(200);
    expect(r.body).toBe(`right says hello to moving.test:${port}`);
    expect(hits).toEqual([`right moving.test:${port}/redirect-same`, `right moving.test:${port}/landed`]);
    expect(lookups).toBe(1);
  });

  test("a grant --host a.test reaches neither b.test, nor a redirect from a to b, nor the metadata address", async () => {
    const deps = setup([{ host: "a.test" }]);
    expect((await get(deps, { url: `http://b.test:${port}/` })).code).toBe("core.grant.required");
    hits.length = 0;
    const redirected = await get(deps, { url: `http://a.test:${port}/redirect-other` });
    expect(redirected).toMatchObject({
      status: 302,
      redirect_stopped: "the redirect leads to b.test, which the grant does not cover",
    });
    expect(hits).toEqual([`right a.test:${port}/redirect-other`]);
    const meta = await get(deps, { url: "http://169.254.169.254/latest/meta-data/" });
    expect(meta.code).toBe("core.grant.required");
    expect(meta.hint).toContain("--host 169.254.169.254");
  });

  test("a grant for any host still may not reach a loopback, private or metadata address it does not name", async () => {
    const deps = setup([{ host: null }]);
    const loop = await get(deps, { url: `http://a.test:${port}/` });
    expect(loop).toMatchObject({
      code: "net.destination.private",
      message: "a.test is at 127.0.0.1, a loopback address, which only a grant naming it may reach",
    });
    expect(loop.hint).toContain("--host a.test");
    expect((await get(deps, { url: "http://meta.test/" })).code).toBe("net.destination.private");
    // an address written out is known before any lookup: the grant for any host is not spent on it
    const meta = await get(deps, { url: "http://169.254.169.254/" });
    expect(meta.code).toBe("core.grant.required");
    expect(meta.message).toContain("a metadata address a grant for any host does not reach");
    expect(meta.hint).toContain("--host 169.254.169.254");
  });

  test("a redirect to another host is followed when the grant covers it, and each hop is listed", async () => {
    const deps = setup([{ host: "a.test" }, { host: "b.test" }]);
    const r = await get(deps, { url: `http://a.test:${port}/redirect-other` });
    // Each host needs its own grant for a loopback address; the call's grant names a.test, so b.test stops it.
    expect(r.redirect_stopped).toBe("the redirect leads to b.test, which the grant does not cover");
    const person_ = await get(deps, { url: `http://a.test:${port}/redirect-other` }, "http_get", person);
    expect(person_.hops).toEqual([
      { url: `http://a.test:${port}/redirect-other`, status: 302, location: `http://b.test:${port}/landed` },
      { url: `http://b.test:${port}/landed`, status: 200 },
    ]);
  });

  test("a 5 MiB body is cut, with a line saying how much was left out: at 1 MiB for a person, to the model's budget for an agent", async () => {
    const deps = setup([{ host: "a.test" }]);
    const forPerson = await get(deps, { url: `http://a.test:${port}/big` }, "http_get", person);
    expect(forPerson.body_bytes).toBe(1024 * 1024);
    expect(
      String(forPerson.body).endsWith(`\n[${4 * 1024 * 1024} more bytes left out: the body is cut at 1 MiB]`),
    ).toBe(true);
    const forAgent = await get(deps, { url: `http://a.test:${port}/big` });
    expect(forAgent.body_bytes as number).toBeLessThan(80 * 1024);
    expect(String(forAgent.body)).toMatch(/\n\[\d+ more bytes left out: the body is cut at \d+ KiB\]$/);
  });

  test("a slow server times out on its headers", async () => {
    const r = await get(setup([{ host: "a.test" }]), { url: `http://a.test:${port}/slow`, timeout: 1 });
    expect(r).toMatchObject({
      code: "net.timeout",
      message: `a.test:${port} did not send its response headers within 1000 ms`,
    });
  });

  test("a server that sends its headers and stalls its body times out on the body, not the headers", async () => {
    const r = await get(setup([{ host: "a.test" }]), { url: `http://a.test:${port}/stall`, timeout: 1 });
    expect(r).toMatchObject({
      code: "net.timeout",
      message: `a.test:${port} sent its headers but not its body within 1000 ms`,
    });
  });

  test("HTTPS with the operator's CA: trusted, with its TLS version; without it, the handshake fails", async () => {
    const ok = await get(setup([{ host: "a.test" }]), { url: `https://a.test:${tlsPort}/` });
    expect(ok).toMatchObject({ status: 200, body: `tls says hello to a.test:${tlsPort}` });
    const untrusted = await get(setup([{ host: "a.test" }], false), { url: `https://a.test:${tlsPort}/` });
    expect(untrusted.code).toBe("net.tls");
  });

  test("http.head: status and headers, no body", async () => {
    const r = await get(setup([{ host: "a.test" }]), { url: `http://a.test:${port}/` }, "http_head");
    expect(r.status).toBe(200);
    expect(r.body).toBeUndefined();
  });

  test("what is not an http(s) URL is refused before anything is sent", async () => {
    const deps = setup([{ host: null }]);
    for (const url of ["file:///etc/passwd", "not a url", "gopher://a.test/", "http://user:pw@a.test/"]) {
      expect((await get(deps, { url })).code).toBe("net.badhost");
    }
  });
});
