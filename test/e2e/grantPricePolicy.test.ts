/**
 * End to end: a grant's price is what it can be spent on. A capability the
 * team policy never grants is not covered by a grant of its area, so the
 * summary leaves it out and, when it was the destructive one, nothing is asked.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

test("an area whose destructive capability the policy never grants: not listed, not asked about", async () => {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  writeFileSync(join(env.RTA_CONFIG_DIR, "policy.toml"), 'never = ["note.rm"]\n');
  const { code, out } = await onTerminal(["grant", "allow", "note", "--agent", "claude", "--ttl", "5m"], env);
  expect(code).toBe(0);
  expect(out).toContain("a grant of note for agent claude would cover:\n");
  expect(out).toMatch(/\n {2}note\.add +write\n/);
  expect(out).not.toContain("note.rm");
  expect(out).not.toContain("issue it?");
  expect(out).toMatch(/granted g[0-9a-f]{8}: note for agent claude/);
  const piped = await rta(["grant", "allow", "note", "--agent", "claude", "--ttl", "5m"], { env });
  expect(piped.code).toBe(0);
  expect(piped.stderr).not.toContain("note.rm");
});

test("an area the policy never grants any of: the summary says it covers nothing", async () => {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  const never = '["note.add", "note.list", "note.rm", "note.show"]';
  writeFileSync(join(env.RTA_CONFIG_DIR, "policy.toml"), `never = ${never}\n`);
  const r = await rta(["grant", "allow", "note", "--agent", "claude", "--ttl", "5m"], { env });
  expect(r.code).toBe(0);
  expect(r.stderr).toStartWith(
    "a grant of note for agent claude would cover:\n  nothing: the team policy never grants any of it\nhosts:",
  );
});
