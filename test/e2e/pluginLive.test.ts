/**
 * End to end: a running server takes up a plugin installed or removed with
 * `rta pkg` in another process, over stdio and HTTP, in either era. The
 * client is told once (notifications/tools/list_changed) and lists and calls
 * the new tools; once the plugin is removed it is told again, the tools are
 * gone, a call of one is answered as an unknown tool, and the plugin's
 * process is stopped.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fixture, running } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import type { Era } from "../support/mcpClient.ts";
import { installPlugin, NOTE_PLUGIN } from "../support/plugins.ts";
import { prepareDataDir, RTA, rta } from "../support/rta.ts";

type Transport = "stdio" | "http";

/** A client of a server over `transport` that keeps each list_changed it is told of, as the note tools it then lists. */
async function listening(era: Era, transport: Transport, env: Record<string, string>) {
  const told: string[][] = [];
  let wake: (() => void) | undefined;
  const client = new Client(
    { name: "rta-e2e", version: "1.0.0" },
    {
      ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (_err, tools) => {
            told.push((tools ?? []).map((t) => t.name).filter((n) => n.startsWith("note_")));
            wake?.();
          },
        },
      },
    },
  );
  let stop = async () => {};
  if (transport === "stdio") {
    await prepareDataDir(env.RTA_DATA_DIR);
    await client.connect(
      new StdioClientTransport({
        command: RTA,
        args: ["mcp", "serve"],
        env: { PATH: process.env.PATH ?? "", ...env },
        stderr: "pipe",
      }),
    );
  } else {
    const srv = await startHttp([], { data: env.RTA_DATA_DIR as string, config: env.RTA_CONFIG_DIR as string });
    stop = srv.stop;
    const token = await srv.token("claude");
    await client.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  }
  /** Waits until the client has been told `n` times (the test's own time limit stops a wait that never ends). */
  const toldTimes = async (n: number) => {
    while (told.length < n) await new Promise<void>((resolve) => (wake = resolve));
    return told[n - 1] as string[];
  };
  const names = async () => (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("note_"));
  return {
    client,
    told,
    toldTimes,
    names,
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

/** Waits until no process runs `file`, and says which still do after 5 s. */
async function gone(file: string): Promise<number[]> {
  for (let i = 0; i < 250 && running(file).length > 0; i++) await Bun.sleep(20);
  return running(file);
}

describe("a running server takes up plugins installed and removed in another process", () => {
  for (const transport of ["stdio", "http"] as const)
    for (const era of ["legacy", "modern"] as const) {
      test(`${transport}, ${era}: install is told once and callable; remove is told, gone and stopped`, async () => {
        const data = tempDir();
        const config = tempDir();
        const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
        const server = await listening(era, transport, env);
        try {
          expect(server.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
          expect(await server.names()).toEqual([]);

          await installPlugin(NOTE_PLUGIN, data, { RTA_CONFIG_DIR: config, HOME: data });
          const first = await server.toldTimes(1);
          expect(first).toEqual(expect.arrayContaining(["note_add", "note_list", "note_rm", "note_show"]));
          expect(await server.names()).toEqual(first);
          const listed = await server.client.callTool({ name: "note_list", arguments: {} });
          expect(listed.isError).toBeFalsy();
          const binary = join(data, "plugins", "rta-plugin-note");
          expect(running(binary).length).toBeGreaterThan(0);

          const removed = await rta(["pkg", "remove", "note"], { env });
          expect(removed.code).toBe(0);
          // the next thing told is the removal: the install was told once, with nothing after it
          expect(await server.toldTimes(2)).toEqual([]);
          expect(server.told).toHaveLength(2);
          expect(await server.names()).toEqual([]);
          // answered as any name the server never offered
          const called = server.client.callTool({ name: "note_list", arguments: {} });
          await expect(called).rejects.toMatchObject({ code: -32602, data: { code: "core.tool.unknown" } });
          expect(await gone(binary)).toEqual([]);
        } finally {
          await server.close();
        }
      }, 60_000);
    }
});

describe("a running server takes up a plugin upgraded in another process", () => {
  test("stdio: the upgrade is told, its tool answers from the new binary, and the old one's process is stopped", async () => {
    const data = tempDir();
    const config = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
    await installPlugin(fixture("demo"), data, { RTA_CONFIG_DIR: config, HOME: data });
    const server = await listening("legacy", "stdio", env);
    const demo = async () => (await server.client.listTools()).tools.find((t) => t.name === "demo_echo");
    try {
      expect((await demo())?.description).toContain("Say a text back");
      const echoed = await server.client.callTool({ name: "demo_echo", arguments: { text: "one" } });
      expect(JSON.stringify(echoed.content)).toContain("one");
      const before = running(join(data, "plugins", "rta-plugin-demo"));
      expect(before.length).toBeGreaterThan(0);

      // version 2 says its echo in other words
      const next = join(tempDir(), "rta-plugin-demo");
      const text = readFileSync(fixture("demo"), "utf8");
      writeFileSync(
        next,
        text.replace('"version":"1.0.0"', '"version":"2.0.0"').replace("Say a text back", "Echo a text"),
      );
      chmodSync(next, 0o755);
      await installPlugin(next, data, { RTA_CONFIG_DIR: config, HOME: data });
      // told once (what it keeps of the list is the note tools: none here)
      await server.toldTimes(1);
      expect(server.told).toHaveLength(1);
      // the old binary's process is stopped before any call asks for the new one
      for (let i = 0; i < 250 && before.some((pid) => running("rta-plugin-demo").includes(pid)); i++)
        await Bun.sleep(20);
      expect(running("rta-plugin-demo").filter((pid) => before.includes(pid))).toEqual([]);
      expect((await demo())?.description).toContain("Echo a text");
      const again = await server.client.callTool({ name: "demo_echo", arguments: { text: "two" } });
      expect(JSON.stringify(again.content)).toContain("two");
      expect(again.isError).toBeFalsy();
    } finally {
      await server.close();
    }
  }, 60_000);
});
