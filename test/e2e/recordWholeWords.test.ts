/**
 * End to end: a problem --verify finds with the whole record, not at one of
 * its lines (a checkpoint or key gone), is said as one sentence, as the
 * problems at a line are.
 */
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

test("a checkpoint removed is said as `replaced: the data dir holds no checkpoint …`, without a stray subject", async () => {
  const data = tempDir();
  const server = await connect("modern", [], { dataDir: data });
  try {
    await server.client.callTool({ name: "sys_info", arguments: {} });
  } finally {
    await server.close();
  }
  rmSync(join(data, "record.checkpoint"));
  const r = await rta(["agent", "log", "--verify"], { env: { RTA_DATA_DIR: data, HOME: data } });
  expect(r.stdout).toStartWith("replaced: the data dir holds no checkpoint for this keyed record");
  expect(r.code).toBe(1);
});
