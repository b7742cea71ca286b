/**
 * `rta grant allow | list | revoke` on the command line, in-process against a
 * factory of fakes: what each prints, and what each refuses with which code.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { onScreen, runCli } from "../support/runCli.ts";

function dirsEnv() {
  const data = tempDir();
  const config = tempDir();
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

describe("the grant verbs on the command line", () => {
  test("allow prints what the grant covers, until when, and how many uses; list and revoke manage them", async () => {
    const { env } = dirsEnv();
    const { screen: human } = await onScreen(
      ["grant", "allow", "note.rm", "deploy-1", "--agent", "claude", "--ttl", "5m", "--max-uses", "1", "--yes"],
      { env: { NO_COLOR: "1", ...env } },
    );
    expect(human).toMatch(
      /\ntime: 5m\ngranted g[0-9a-f]{8}: note\.rm \(id deploy-1\) for agent claude, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 5m\), 1 use\r?\n$/,
    );
    const detail = JSON.parse((await runCli(["grant", "list", "--detail", "--json"], { env })).stdout).grants[0];
    expect(detail).toMatchObject({
      target: "note.rm",
      record: "deploy-1",
      agent: "claude",
      build: expect.stringMatching(/^rta /),
      // note is a plugin: the grant is pinned to its binary's sha256
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      fix: null,
      state: "live",
    });
    expect((await runCli(["grant", "revoke", "--agent", "claude", "--json"], { env })).stdout).toBe('{"revoked":1}\n');
    const none = await runCli(["grant", "revoke", "--all"], { env });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain("(core.grant.unknown)");
  });

  test("a never-a-tool name, a made-up one and a bad ttl are refused with a code", async () => {
    const { env } = dirsEnv();
    for (const [args, code] of [
      [["grant", "allow", "grant.allow", "--agent", "claude", "--ttl", "5m"], "core.tool.unknown"],
      [["grant", "allow", "nope.thing", "--agent", "claude", "--ttl", "5m"], "core.tool.unknown"],
      [["grant", "allow", "note.add", "--agent", "claude", "--ttl", "soon"], "core.input.invalid"],
      [["grant", "allow", "note.add", "--agent", "claude"], "core.cli.usage"],
      [["grant", "allow", "note.rm", "--agent", "claude", "--ttl", "5m", "--args", "{bad"], "core.input.invalid"],
      [["grant", "allow", "note.rm", "--agent", "claude", "--ttl", "5m", "--args", '{"idd":"x"}'], "core.mcp.badargs"],
      // an empty narrowing would be none at all
      [["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", ""], "core.input.invalid"],
      [["grant", "allow", "note.rm", "", "--agent", "claude", "--ttl", "5m"], "core.input.invalid"],
      // a host is a name or an address alone, on something that reaches one
      [
        ["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "not a host"],
        "core.input.invalid",
      ],
      [
        ["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "5m", "--host", "example.test"],
        "core.input.invalid",
      ],
    ] as [string[], string][]) {
      const r = await runCli(args, { env });
      expect({ args, ok: r.stderr.includes(`(${code})`) }).toEqual({ args, ok: true });
      expect(r.code).not.toBe(0);
    }
  });
});
