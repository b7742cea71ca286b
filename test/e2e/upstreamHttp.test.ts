/**
 * End to end: an SDK v2 server over Streamable HTTP on 127.0.0.1, wanting a
 * bearer token, as an upstream of the built binary: its paged tools list
 * taken whole, annotations that lie corrected by config, a repeated cursor
 * failing only that upstream's discovery, a 100 MB answer refused with the
 * server's peak RSS under 120 MiB, and the token in no response, error,
 * stderr line or record line.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { PNG, startFixture } from "../upstreams/fixtureServer.ts";

const vendor = startFixture();
const looping = startFixture({ loop: true, token: vendor.token });
afterAll(() => {
  vendor.stop();
  looping.stop();
});

function setUp() {
  const data = tempDir();
  const config = tempDir();
  writeFileSync(
    join(config, "config.toml"),
    [
      "[upstreams.vendor]",
      `url = ${JSON.stringify(vendor.url)}`,
      `headers = { Authorization = ${JSON.stringify(`Bearer ${vendor.token}`)} }`,
      "[upstreams.vendor.tools.tidyUp]",
      'safety = "destructive"',
      "[upstreams.vendor.tools.web]",
      'safety = "read"',
      "[upstreams.loop]",
      `url = ${JSON.stringify(looping.url)}`,
      `headers = { Authorization = ${JSON.stringify(`Bearer ${vendor.token}`)} }`,
      "",
    ].join("\n"),
  );
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data } };
}

function peakKiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`an HTTP upstream with a bearer token (${era})`, () => {
    test("paged, corrected, bounded, and its token never told", async () => {
      const { data, env } = setUp();
      await approveUpstream(env, "vendor");
      const server = await connect(era, [], { dataDir: data, env });
      const seen: string[] = [];
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await server.client.callTool({ name, arguments: args });
        seen.push(JSON.stringify(result));
        return resultJson(result);
      };
      try {
        const { tools } = await server.client.listTools();
        seen.push(JSON.stringify(tools));
        const names = tools.map((t) => t.name).filter((n) => n.startsWith("vendor_") || n.startsWith("loop_"));
        // four pages taken whole; the schema that does not compile leaves only its tool out; the loop offers nothing
        expect(names.sort()).toEqual([
          "vendor_echo",
          "vendor_fail",
          "vendor_huge",
          "vendor_picture",
          "vendor_slow",
          "vendor_tidy_up",
          "vendor_web",
          "vendor_whoami",
        ]);
        expect(tools.find((t) => t.name === "vendor_whoami")?.description).toContain("as <upstream secret>.");
        const tidy = tools.find((t) => t.name === "vendor_tidy_up");
        expect(tidy?.annotations).toEqual({ destructiveHint: true, openWorldHint: false });
        // open world is no free read, and config may not make it one without trust
        expect(tools.find((t) => t.name === "vendor_web")?.annotations?.readOnlyHint ?? false).toBe(false);

        expect(await call("vendor_echo", { text: "hi" })).toEqual({ type: "text", text: "hi" });
        expect(await call("vendor_echo", { text: "hi", extra: 1 })).toMatchObject({ code: "core.mcp.badargs" });
        expect(await call("vendor_tidy_up")).toMatchObject({ code: "core.grant.required" });
        expect(vendor.calls).not.toContain("tidyUp");

        const who = await call("vendor_whoami");
        expect(who.type).toBe("object");
        expect(JSON.stringify(who)).not.toContain(vendor.token);
        const failed = await call("vendor_fail");
        expect(failed).toMatchObject({ type: "error", code: "upstream.vendor.error" });
        expect(String(failed.message)).toContain("bad credentials");
        // an image and audio passed on as blocks after rta's text, which says what follows
        const picture = (await server.client.callTool({ name: "vendor_picture", arguments: {} })) as {
          content: Record<string, unknown>[];
        };
        expect(picture.content.slice(1)).toEqual([
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
        ]);
        expect(JSON.parse(String(picture.content[0]?.text))).toMatchObject({
          type: "media",
          text: "a picture and its sound",
          blocks: [{ kind: "image", mimeType: "image/png", bytes: 70 }, { kind: "audio" }],
        });

        // a cancel is passed on: the upstream's request is abandoned, and the call ends
        const before = vendor.abandoned;
        const cancel = new AbortController();
        const calls = vendor.calls.length;
        const slow = server.client.callTool({ name: "vendor_slow", arguments: {} }, { signal: cancel.signal });
        for (let i = 0; i < 200 && !vendor.calls.slice(calls).includes("slow"); i++) await Bun.sleep(20);
        cancel.abort();
        await slow.catch(() => {});
        for (let i = 0; i < 200 && vendor.abandoned === before; i++) await Bun.sleep(20);
        expect(vendor.abandoned).toBe(before + 1);

        const huge = await call("vendor_huge");
        expect(huge).toMatchObject({ type: "error", code: "core.result.toolarge" });
        const pid = server.pid() as number;
        expect(peakKiB(pid)).toBeLessThan(120 * 1024);
        // and it serves on, reconnecting after the backoff the cut answer started
        let again: Record<string, unknown> = {};
        for (let i = 0; i < 40; i++) {
          again = await call("vendor_echo", { text: "still here" });
          if (again.type === "text") break;
          expect(again).toMatchObject({ code: "upstream.unavailable" });
          await Bun.sleep(100);
        }
        expect(again).toEqual({ type: "text", text: "still here" });
      } finally {
        await server.close();
      }
      const listed = await rta(["upstream", "list", "--json"], { env });
      seen.push(listed.stdout, listed.stderr);
      const loop = (
        JSON.parse(listed.stdout) as { upstreams: { name: string; state: string; reason?: string }[] }
      ).upstreams.find((u) => u.name === "loop");
      expect(loop).toMatchObject({ state: "failed", reason: "its tools/list repeated a cursor (it would never end)" });
      const doctor = await rta(["doctor"], { env });
      seen.push(doctor.stdout, doctor.stderr, server.stderr());
      // nor what the data dir keeps of the discovery
      seen.push(readFileSync(join(data, "upstreams", "discovered.json"), "utf8"));
      const record = readFileSync(join(data, "agent-log.jsonl"), "utf8");
      expect(record).toContain("upstream.vendor.error");
      seen.push(record);
      for (const text of seen) {
        expect(text).not.toContain(vendor.token);
      }
      expect(vendor.refused).toBe(0);
    }, 60_000);
  });
}
