import { afterAll, beforeAll, expect, test } from "bun:test";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin } from "../../../src/core/call.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { grantFor, testDeps } from "../../support/fixtures.ts";
import { makeCa } from "../../support/testCa.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
const servers: { close(): void }[] = [];
const ports: Record<string, number> = {};

async function listen(name: string, s: net.Server) {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  servers.push(s);
  ports[name] = (s.address() as AddressInfo).port;
}

beforeAll(async () => {
  const ca = makeCa(["a.test"]);
  await listen(
    "ssh",
    net.createServer((sock) => sock.end("SSH-2.0-OpenSSH_9.2 test\r\n")),
  );
  await listen(
    "http",
    http.createServer((_q, r) => r.writeHead(200, { server: "nginx/1.25.3" }).end()),
  );
  await listen(
    "https",
    https.createServer({ key: ca.key, cert: ca.cert }, (_q, r) => r.writeHead(404, { server: "caddy" }).end()),
  );
  const gone = net.createServer();
  await listen("closed", gone);
  gone.close();
});
afterAll(() => {
  for (const s of servers) s.close();
});

async function probe(port: number) {
  const deps = testDeps();
  grantFor(deps, { target: "net.probe", host: "127.0.0.1" });
  const out = await runCall(
    { capability: "net_probe", args: { host: "127.0.0.1", port }, origin: agent },
    builtinCatalogue(),
    deps,
  );
  if (!out.ok || out.value.type !== "object") throw new Error(out.ok ? "not an object" : out.error.message);
  return out.value.value;
}

test("a server that speaks first is known by its banner", async () => {
  expect(await probe(ports.ssh as number)).toMatchObject({
    open: true,
    banner: "SSH-2.0-OpenSSH_9.2 test",
    tls: false,
    http: false,
  });
});

test("plain HTTP, with its status line and Server header", async () => {
  expect(await probe(ports.http as number)).toMatchObject({
    open: true,
    banner: null,
    tls: false,
    http: { status_line: "HTTP/1.1 200 OK", server: "nginx/1.25.3" },
  });
});

test("HTTPS: TLS and its version, then HTTP over it", async () => {
  const r = await probe(ports.https as number);
  expect(r).toMatchObject({
    open: true,
    http: { status_line: expect.stringMatching(/^HTTP\/1\.1 404/), server: "caddy" },
  });
  expect((r.tls as { protocol: string }).protocol).toMatch(/^TLSv1\.[23]$/);
});

test("a closed port is not open", async () => {
  expect(await probe(ports.closed as number)).toMatchObject({ open: false });
});
