import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixture } from "./support.ts";

const page = readFileSync(join(import.meta.dir, "..", "..", "docs", "plugins.md"), "utf8");

test("docs/plugins.md shows the shell example whole, as the tests run it", () => {
  const block = /### The shell example[\s\S]*?```sh\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block).toBe(readFileSync(fixture("demo"), "utf8"));
});

test("docs/plugins.md names the protocol version the host speaks", async () => {
  const { PLUGIN_PROTOCOL } = await import("../../src/plugins/protocol.ts");
  expect(page).toContain(`**version ${PLUGIN_PROTOCOL}**`);
});
