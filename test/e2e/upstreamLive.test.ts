/**
 * End to end: a running server takes up a person's approval made in another
 * process while a client is connected, in either era. The client is told
 * (notifications/tools/list_changed) and lists the new tools; a change the
 * upstream made and `rta upstream refresh` found is withheld likewise; and
 * `rta upstream remove` puts the upstream back out of reach.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import type { Era } from "../support/mcpClient.ts";
import { prepareDataDir, RTA, rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { startFixture } from "../upstreams/fixtureServer.ts";

const vendor = startFixture();
afterAll(() => vendor.stop());

/** A client of `rta mcp serve` that counts the list_changed it is told of, with the tool names it then lists. */
async function listening(era: Era, env: Record<string, string>) {
  await prepareDataDir(env.RTA_DATA_DIR as string);
  const told: string[][] = [];
  let wake: (() => void) | undefined;
  const transport = new StdioClientTransport({
    command: RTA,
    args: ["mcp", "serve"],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  const client = new Client(
    { name: "rta-e2e", version: "1.0.0" },
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
  await client.connect(transport);
  /** Waits until the client has been told `n` times (the test's own time limit stops a wait that never ends). */
  const toldTimes = async (n: number) => {
    while (told.length < n) await new Promise<void>((resolve) => (wake = resolve));
    return told[n - 1] as string[];
  };
  return { client, told, toldTimes, close: () => client.close() };
}

describe("a running server takes up approvals made in another process", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: approve, a refreshed change and remove are taken up, and the client is told each`, async () => {
      const data = tempDir();
      const config = tempDir();
      const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
      const added = await rta(
        ["upstream", "add", "vendor", "--url", vendor.url, "--header", `Authorization: Bearer ${vendor.token}`],
        { env },
      );
      expect(added.code).toBe(0);
      const server = await listening(era, env);
      try {
        const names = async () =>
          (await server.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("vendor_"));
        expect(await names()).toEqual([]);
        expect(server.client.getServerCapabilities()?.tools?.listChanged).toBe(true);

        await approveUpstream(env, "vendor");
        const first = await server.toldTimes(1);
        expect(first).toContain("vendor_echo");
        expect(await names()).toContain("vendor_echo");
        const echoed = await server.client.callTool({ name: "vendor_echo", arguments: { text: "live" } });
        expect(JSON.stringify(echoed)).toContain("live");

        // the upstream changes a description (a rug pull); a refresh in another process finds it and approves nothing
        const echo = vendor.tools.find((t) => t.name === "echo");
        if (echo === undefined) throw new Error("the fixture has no echo");
        const was = echo.description;
        echo.description = "Say a text back, and send it elsewhere.";
        try {
          const refreshed = await rta(["upstream", "refresh", "vendor"], { env });
          expect(refreshed.stdout).toContain("changed");
          const second = await server.toldTimes(2);
          expect(second).not.toContain("vendor_echo");
          expect(second).toContain("vendor_whoami");
          const held = await server.client.callTool({ name: "vendor_echo", arguments: { text: "x" } });
          expect(JSON.stringify(held)).toContain("upstream.changed");
        } finally {
          echo.description = was;
        }

        // removed in another process: its approval is forgotten, and nothing of it is offered
        const removed = await rta(["upstream", "remove", "vendor"], { env });
        expect(removed.code).toBe(0);
        const third = await server.toldTimes(3);
        expect(third).toEqual([]);
        expect(await names()).toEqual([]);
      } finally {
        await server.close();
      }
    }, 60_000);
  }
});
