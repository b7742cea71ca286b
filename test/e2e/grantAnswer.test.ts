/**
 * End to end: the answer to `issue it? [y/N]` is a whole line the person
 * typed. A line over 1 KiB is no answer, whatever it starts with.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

test("y followed by 1500 spaces issues nothing", async () => {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  const args = ["grant", "allow", "note.rm", "--agent", "claude", "--ttl", "5m"];
  const r = await onTerminal(args, env, `y${" ".repeat(1500)}\n`);
  expect(r.code).toBe(3);
  expect(r.out).toContain("(core.grant.declined)");
  const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout);
  expect(listed.grants).toEqual([]);
});
