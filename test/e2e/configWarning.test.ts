/**
 * End to end: a config.toml that does not read is said to the person on
 * stderr by the built binary, once, and never to an agent: a server says it
 * on its own stderr, and no tool result carries it.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

test("a person is told once, and an agent is not told at all", async () => {
  const config = tempDir();
  writeFileSync(join(config, "config.toml"), 'roots = "not a list"\n');
  const r = await rta(["proc", "list", "--limit", "1", "--json"], { env: { RTA_CONFIG_DIR: config } });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe(
    `rta: warning: ${join(config, "config.toml")} does not read (roots must be a list of absolute paths), so rta runs without it\n` +
      "rta: hint: `rta config check` lists every problem in it\n",
  );
  const s = await connect("modern", ["--root", tempDir()], { env: { RTA_CONFIG_DIR: config } });
  try {
    const info = await s.client.callTool({ name: "sys_info", arguments: {} });
    expect(JSON.stringify(info)).not.toContain("does not read");
    expect(JSON.stringify(info)).not.toContain("config check");
    expect(resultJson(info).type).toBe("object");
    expect(s.stderr().match(/does not read/g)).toHaveLength(1);
  } finally {
    await s.close();
  }
});
