/**
 * policy.toml's grant_from on the command line, in-process: what `grant allow`,
 * `lock lift` and `mcp token new` refuse with no controlling terminal, and take
 * once yes is typed on it; unset, the piped scripting path stays as it was.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { onScreen, runCli } from "../support/runCli.ts";

function withPolicy(policy?: string) {
  const data = tempDir();
  const config = tempDir();
  if (policy !== undefined) writeFileSync(join(config, "policy.toml"), policy);
  return { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, NO_COLOR: "1" };
}

const ALLOW = ["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m"];

describe('grant_from = "terminal"', () => {
  test("with no controlling terminal, a grant is refused with a hint that a person must run it, --yes or not", async () => {
    const env = withPolicy('grant_from = "terminal"\n');
    for (const args of [ALLOW, [...ALLOW, "--yes"], [...ALLOW, "--json"]]) {
      const r = await runCli(args, { env, stdin: "yes\n" });
      expect(r.code).toBe(3);
      if (args.includes("--json")) expect(r.stdout).toContain("core.grant.noterminal");
      else expect(r.stdout).toBe("");
      if (!args.includes("--json")) {
        expect(r.stderr).toContain("(core.grant.noterminal)");
        expect(r.stderr).toContain("rta: hint: a person must run it");
      }
    }
    expect((await runCli(["grant", "list", "--json"], { env })).stdout).toContain('"total":0');
  });

  test("yes typed on the terminal issues the grant, piped stdout or not; anything else issues nothing", async () => {
    const env = withPolicy('grant_from = "terminal"\n');
    const piped = await runCli(ALLOW, { env, devTty: "yes\n" });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^g[0-9a-f]{8}\n$/);
    const { code, screen } = await onScreen(ALLOW, { env, devTty: "y\n" });
    expect(code).toBe(0);
    expect(screen).toContain("a grant of note.add for agent claude would cover:\n");
    expect(screen).toContain("issue it? type yes on this terminal [y/N] ");
    expect(screen).toMatch(/granted g[0-9a-f]{8}: note\.add for agent claude/);
    // the coverage is said once, on the terminal the person answers on
    expect(screen.split("would cover:").length).toBe(2);
    const no = await runCli(ALLOW, { env, devTty: "\n", stdin: "yes\n" });
    expect(no.code).toBe(3);
    expect(no.stderr).toContain("(core.grant.declined)");
    expect(JSON.parse((await runCli(["grant", "list", "--json"], { env })).stdout).total).toBe(2);
  });

  test("a lock is lifted, and a token made, only once a person types yes on the terminal", async () => {
    const env = withPolicy('grant_from = "terminal"\n');
    const id = (await runCli(["lock", "--agent", "claude"], { env })).stdout.trim();
    const refused = await runCli(["lock", "lift", id], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("(core.grant.noterminal)");
    expect((await runCli(["lock", "list", "--json"], { env })).stdout).toContain('"state":"active"');
    const { code, screen } = await onScreen(["lock", "lift", "--agent", "claude"], { env, devTty: "yes\n" });
    expect(code).toBe(0);
    expect(screen).toContain("lifting every lock of agent claude\nlift it? type yes on this terminal [y/N] ");
    expect((await runCli(["lock", "list", "--json"], { env })).stdout).toContain('"state":"lifted"');

    const noToken = await runCli(["mcp", "token", "new", "--agent", "claude"], { env });
    expect(noToken.code).toBe(3);
    expect(noToken.stderr).toContain("(core.grant.noterminal)");
    expect(noToken.stdout).toBe("");
    const token = await runCli(["mcp", "token", "new", "--agent", "claude", "--ttl", "1d"], { env, devTty: "yes\n" });
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^\S{20,}\n$/);
  });

  test("setting a lock and revoking never ask: stopping an agent needs no terminal", async () => {
    const env = withPolicy('grant_from = "terminal"\n');
    // with nothing to lift, that is said, and nobody is asked
    const none = await runCli(["lock", "lift", "--all"], { env });
    expect(none.stderr).toContain("(core.grant.unknown)");
    expect(none.stderr).not.toContain("noterminal");
    expect((await runCli(["lock", "--agent", "claude"], { env })).code).toBe(0);
    expect((await runCli(["grant", "revoke", "--all"], { env })).stderr).toContain("(core.grant.unknown)");
  });
});

describe("grant_from unset, or not one of its values", () => {
  test("unset, a piped grant issues without asking (the scripting path), and doctor calls it the self-grant path", async () => {
    const env = withPolicy();
    const r = await runCli(ALLOW, { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^g[0-9a-f]{8}\n$/);
    const doctor = JSON.parse((await runCli(["doctor", "--json"], { env })).stdout);
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ check: "grants", status: "note", detail: expect.stringContaining("self-grant path") }),
    );
    const strict = withPolicy('grant_from = "terminal"\n');
    const told = JSON.parse((await runCli(["doctor", "--json"], { env: strict })).stdout);
    expect(told.findings).toContainEqual({
      check: "grants",
      status: "ok",
      detail: "issued only from a person's terminal (grant_from)",
    });
  });

  test("a value grant_from does not take makes the policy unreadable, naming the values it takes", async () => {
    const env = withPolicy('grant_from = "tty"\n');
    const r = await runCli(ALLOW, { env, devTty: "yes\n" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('grant_from must be "terminal" or "operator", not "tty"');
    expect(r.stderr).toContain("(core.policy.unreadable)");
  });
});
