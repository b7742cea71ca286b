/**
 * End to end: three holes an attack on upstreams found, closed on the built
 * binary. An upstream's env names are bound into its approval (its values
 * are not), and a variable that loads code is a config error; a schema that
 * would cost ajv seconds, or that refers outside itself, leaves its tool out
 * at discovery with why; an SVG image is refused, and an image the MCP client
 * rejects as not base64 is the upstream's failed call, its connection kept.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { startHoleyHttp } from "../upstreams/holey.ts";

const STDIO = join(import.meta.dir, "..", "upstreams", "holeyStdio.ts");
const TOKEN = `tok-${crypto.randomUUID()}`;
const http = startHoleyHttp();
afterAll(() => http.stop());

function setUp() {
  const data = tempDir();
  const config = tempDir();
  const write = (env: string) =>
    writeFileSync(
      join(config, "config.toml"),
      `[upstreams.holes]\ncommand = ${JSON.stringify([process.execPath, STDIO])}\nenv = { ${env} }\n` +
        `[upstreams.web]\nurl = ${JSON.stringify(http.url)}\n`,
    );
  write(`TOKEN = ${JSON.stringify(TOKEN)}`);
  return { data, write, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data } };
}

type Listed = { upstreams: { name: string; tools: { tool: string; left_out?: string }[] }[] };

describe("holes in upstreams, closed", () => {
  test("costly and remote schemas are left out with why; an SVG and bad base64 are refused, the connection kept", async () => {
    const { data, env } = setUp();
    await approveUpstream(env, "holes");
    await approveUpstream(env, "web");
    const listed = await rta(["upstream", "list", "--json"], { env });
    const tools = (JSON.parse(listed.stdout) as Listed).upstreams.find((u) => u.name === "holes")?.tools ?? [];
    const leftOut = (tool: string) => tools.find((t) => t.tool === tool)?.left_out;
    expect(leftOut("costly")).toBe("its input schema is too large to check: more than 500 subschemas");
    expect(leftOut("allof")).toBe("its input schema is too large to check: more than 500 subschemas");
    expect(leftOut("remote")).toStartWith("its input schema refers outside itself");
    expect(leftOut("ok")).toBeUndefined();
    // nothing ajv generated is printed
    expect(listed.stderr).toBe("");

    const server = await connect("modern", [], { dataDir: data, env });
    const call = async (name: string) => resultJson(await server.client.callTool({ name, arguments: {} }));
    try {
      const names = (await server.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("holes_"));
      expect(names.sort()).toEqual(["holes_badpng", "holes_ok", "holes_svg"]);
      expect(await call("holes_svg")).toMatchObject({
        code: "upstream.result.unsupported",
        message: "upstream holes answered with an image block of image/svg+xml, which can carry script",
      });
      // read by rta itself (a 2025-11-25 stdio upstream) or refused by the MCP client (over HTTP): the upstream's
      // malformed answer, never "could not be reached", and the connection is kept
      expect(await call("holes_badpng")).toMatchObject({
        code: "upstream.result.unsupported",
        message: "upstream holes answered with an image block whose data is not base64",
      });
      expect(await call("web_badpng")).toMatchObject({
        code: "upstream.result.unsupported",
        message: "upstream web answered the call with no result in MCP's shape: a block's data is not base64",
      });
      expect(await call("web_ok")).toMatchObject({ type: "text" });
      // the connection stands: no backoff, the next call is answered at once
      expect(await call("holes_ok")).toEqual({ type: "text", text: "env: HOME LANG PATH TOKEN" });
    } finally {
      await server.close();
    }
  }, 60_000);

  test("an env name added or removed withholds the upstream, said by name; a new value keeps it; a loader is refused", async () => {
    const { env, write } = setUp();
    await approveUpstream(env, "holes");
    const state = async () => (await rta(["upstream", "refresh", "holes"], { env })).stdout.split("\t")[1];
    expect(await state()).toBe("approved");
    // a rotated token keeps the approval
    write('TOKEN = "another-token-value"');
    expect(await state()).toBe("approved");

    write('TOKEN = "another-token-value", EXTRA_SETTING = "1"');
    const refreshed = await rta(["upstream", "refresh", "holes", "--json"], { env });
    expect(refreshed.stdout).toContain('"env":["EXTRA_SETTING","TOKEN"]');
    const shown = await rta(["upstream", "approve", "holes"], { env });
    expect(shown.code).toBe(3);
    expect(shown.stderr + shown.stdout).toContain(
      "its env's variable names changed:\n" +
        `  was: ${JSON.stringify([process.execPath, STDIO])} env: TOKEN\n` +
        `  now: ${JSON.stringify([process.execPath, STDIO])} env: EXTRA_SETTING TOKEN\n` +
        "  env added: EXTRA_SETTING\n",
    );
    const listed = await rta(["upstream", "list"], { env });
    expect(listed.stdout).toContain("its env's variable names changed since it was approved");

    // one that makes the program run other code is no setting at all
    write('TOKEN = "another-token-value", NODE_OPTIONS = "--import /srv/evil.mjs"');
    const check = await rta(["config", "check"], { env });
    expect(check.code).not.toBe(0);
    expect(check.stdout + check.stderr).toContain(
      "[upstreams.holes] env must not set NODE_OPTIONS: it makes the program load code its approval does not pin",
    );
    expect(check.stdout + check.stderr).not.toContain("evil.mjs");
  }, 60_000);
});
