/**
 * End to end: the built binary says a grant's price before issuing it. On a
 * pseudo-terminal a destructive grant is asked about and only y issues it;
 * piped, it proceeds, stdout is the grant's id and the price is on stderr.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

const dirs = () => ({ RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() });
const allow = (target: string, ...more: string[]) => [
  "grant",
  "allow",
  target,
  "--agent",
  "claude",
  "--ttl",
  "5m",
  ...more,
];
const live = async (env: Record<string, string>) =>
  JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout).grants.length as number;

describe("the price of a grant, on the built binary", () => {
  test("at a terminal, an area holding a destructive capability is listed and asked about; y issues it", async () => {
    const env = dirs();
    const { code, out } = await onTerminal(allow("note"), env, "y\n");
    expect(code).toBe(0);
    expect(out).toContain("a grant of note for agent claude would cover:\n");
    expect(out).toMatch(/\n {2}note\.rm +destructive\n/);
    expect(out).toMatch(/\n {2}note\.add +write\n/);
    expect(out).toContain("hosts: none (it reaches no host)\nuses: any number\ntime: 5m\nissue it? [y/N] ");
    expect(out).toMatch(/granted g[0-9a-f]{8}: note for agent claude/);
    expect(await live(env)).toBe(1);
  });

  test("at a terminal, n (or no answer) issues nothing, with core.grant.declined", async () => {
    const env = dirs();
    const no = await onTerminal(allow("note.rm"), env, "n\n");
    expect(no.code).toBe(3);
    expect(no.out).toContain("issue it? [y/N] ");
    expect(no.out).toContain("(core.grant.declined)");
    expect((await onTerminal(allow("note.rm"), env)).code).toBe(3);
    expect(await live(env)).toBe(0);
    const yes = await onTerminal(allow("note.rm", "--yes"), env);
    expect(yes.code).toBe(0);
    expect(yes.out).not.toContain("issue it?");
    expect(await live(env)).toBe(1);
  });

  test("piped, it proceeds unasked: stdout is the grant's id alone (--json: the grant), the price is on stderr", async () => {
    // Issue 14: JSON only with --json; piped, what a script wants is the id it can revoke. Issue 23 asked only
    // that the price go to stderr when piped.
    const env = dirs();
    for (const more of [[], ["--json"]]) {
      const r = await rta(allow("note", ...more), { env });
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n")).toHaveLength(2);
      if (more.length === 0) expect(r.stdout).toMatch(/^g[0-9a-f]{8}\n$/);
      else expect(JSON.parse(r.stdout)).toMatchObject({ target: "note", agent: "claude", max_uses: null });
      expect(r.stderr).toStartWith("a grant of note for agent claude would cover:\n");
      expect(r.stderr).toContain("  note.rm    destructive\n");
      expect(r.stderr).not.toContain("issue it?");
    }
    expect(await live(env)).toBe(2);
    const id = (await rta(allow("note.add"), { env })).stdout.trim();
    expect((await rta(["grant", "revoke", id], { env })).stdout).toBe("1\n");
  });
});
