/**
 * End to end: `rta config check` and `rta doctor` at a terminal show a profile or connection
 * name holding terminal controls escaped, never raw.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { onTerminal } from "../support/terminal.ts";

const check = async (text: string, args = ["config", "check"]) => {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  writeFileSync(join(env.RTA_CONFIG_DIR, "config.toml"), text);
  return onTerminal(args, env);
};

test("a name with an escape and a newline is shown escaped, as a name that does not read", async () => {
  const bad = await check('[profiles."w\\u001b]0;x\\u0007\\nz"]\narea = "note"\n');
  expect(bad.code).toBe(2);
  expect(bad.out).not.toContain("\u001b");
  expect(bad.out).not.toContain("\u0007");
  expect(bad.out).toContain("[profiles.w\\x1b]0;x\\x07\\nz] is not a name\n");
});

test("a profile naming a connection with an escape is shown escaped", async () => {
  const bad = await check('[profiles.work]\narea = "note"\nconnection = "c\\u001b[2J"\n');
  expect(bad.code).toBe(2);
  expect(bad.out).not.toContain("\u001b");
  expect(bad.out).toContain("c\\x1b[2J");
});

test("rta doctor shows the same problem escaped", async () => {
  const bad = await check('[profiles."w\\u001b]0;x\\u0007"]\narea = "note"\n', ["doctor"]);
  expect(bad.code).toBe(1);
  expect(bad.out).not.toContain("\u001b");
  expect(bad.out).toContain("[profiles.w\\x1b]0;x\\x07] is not a name");
});
