/**
 * End to end: an upstream's schema cannot hold the server. A draft-07 enum
 * of 400,000 values is checked against its meta-schema in linear time (ajv
 * compared each value with every other: minutes before the first
 * tools/list), and an argument too long for its pattern's budget is refused
 * before it is matched (a 1 MiB one held the server 9 s), saying why.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { approveUpstream } from "../upstreams/approved.ts";

const COSTLY = join(import.meta.dir, "..", "upstreams", "costlyStdio.ts");

test("a huge enum and a costly pattern leave the server serving", async () => {
  const data = tempDir();
  const config = tempDir();
  writeFileSync(
    join(config, "config.toml"),
    `[upstreams.costly]\ncommand = ${JSON.stringify([process.execPath, COSTLY])}\n`,
  );
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
  await approveUpstream(env, "costly");
  const server = await connect("legacy", [], { dataDir: data, env });
  try {
    const names = (await server.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("costly_"));
    expect(names.sort()).toEqual(["costly_choose", "costly_match"]);
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await server.client.callTool({ name, arguments: args }));

    expect(await call("costly_choose", { n: Array.from({ length: 9000 }, () => 399_999) })).toMatchObject({
      type: "text",
    });
    expect(await call("costly_choose", { n: [400_000] })).toMatchObject({ code: "core.mcp.badargs" });

    expect(await call("costly_match", { s: "a".repeat(1000) })).toEqual({ type: "text", text: "1008 bytes" });
    const long = await call("costly_match", { s: "ab".repeat(512 * 1024) });
    expect(long).toMatchObject({ code: "core.mcp.badargs" });
    expect(String(long.message)).toContain("too long for the patterns of its schema");
  } finally {
    await server.close();
  }
}, 60_000);
