/**
 * End to end: over HTTP too, a client that asked is told its tools changed
 * when a person approves an upstream in another process: a 2026-07-28 client
 * on its listen stream, a 2025-11-25 one on its session's stream.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { startFixture } from "../upstreams/fixtureServer.ts";

const vendor = startFixture();
afterAll(() => vendor.stop());

describe("tools/list_changed over HTTP", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: an approval in another process is told to a client that asked`, async () => {
      const data = tempDir();
      const config = tempDir();
      const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
      const added = await rta(
        ["upstream", "add", "vendor", "--url", vendor.url, "--header", `Authorization: Bearer ${vendor.token}`],
        { env },
      );
      expect(added.code).toBe(0);
      const srv = await startHttp([], { data, config });
      const told: string[][] = [];
      let wake: (() => void) | undefined;
      const client = new Client(
        { name: "http-e2e", version: "1" },
        {
          ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
          listChanged: {
            tools: {
              debounceMs: 0,
              onChanged: (_err, tools) => {
                told.push((tools ?? []).map((t) => t.name).filter((n) => n.startsWith("vendor_")));
                wake?.();
              },
            },
          },
        },
      );
      try {
        const token = await srv.token("claude");
        await client.connect(
          new StreamableHTTPClientTransport(new URL(srv.url), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          }),
        );
        expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
        const names = async () =>
          (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("vendor_"));
        expect(await names()).toEqual([]);
        await approveUpstream(env, "vendor");
        while (told.length < 1) await new Promise<void>((resolve) => (wake = resolve));
        expect(told[0]).toContain("vendor_echo");
        expect(await names()).toContain("vendor_echo");
      } finally {
        await client.close();
        await srv.stop();
      }
    }, 60_000);
  }
});

describe("resource subscriptions over HTTP", () => {
  test("a 2025-11-25 session is told of its grant issued in another process; a 2026-07-28 client is not offered them", async () => {
    const srv = await startHttp();
    const token = await srv.token("claude");
    const connect = async (era: "legacy" | "modern") => {
      const c = new Client(
        { name: "http-e2e", version: "1" },
        era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {},
      );
      await c.connect(
        new StreamableHTTPClientTransport(new URL(srv.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return c;
    };
    const legacy = await connect("legacy");
    const modern = await connect("modern");
    try {
      expect(legacy.getServerCapabilities()?.resources?.subscribe).toBe(true);
      expect(modern.getServerCapabilities()?.resources?.subscribe).toBe(false);
      const told: string[] = [];
      let wake: (() => void) | undefined;
      legacy.setNotificationHandler("notifications/resources/updated", async (n) => {
        told.push(n.params.uri);
        wake?.();
      });
      await legacy.subscribeResource({ uri: "rta://grants" });
      const allowed = await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"], { env: srv.env });
      expect(allowed.code).toBe(0);
      while (told.length < 1) await new Promise<void>((resolve) => (wake = resolve));
      expect(told).toEqual(["rta://grants"]);
    } finally {
      await legacy.close();
      await modern.close();
      await srv.stop();
    }
  }, 30_000);
});
