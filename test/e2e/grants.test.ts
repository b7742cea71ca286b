/**
 * End to end: grants and locks issued on the CLI while dist/rta mcp serve
 * runs, spoken to by the official client. The grant verbs' own output is
 * tested in-process in test/cli/grantVerbs.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { RTA, rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

/** Runs a command line exactly as a person would paste it into a shell, with `rta` as the built binary. */
async function runLiterally(command: string, env: Record<string, string>) {
  if (!command.startsWith("rta ")) throw new Error(`not an rta command: ${command}`);
  const proc = Bun.spawn(["sh", "-c", `"$RTA_BIN" ${command.slice(4)}`], {
    env: { PATH: process.env.PATH ?? "", RTA_BIN: RTA, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { code, stderr };
}

function dirsEnv() {
  const data = tempDir();
  const config = tempDir();
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

describe("the hint works", () => {
  test("the command in a refusal's hint, run literally, lets the same call through; after its ttl it is refused again", async () => {
    const { data, config, env } = dirsEnv();
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const refused = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "plan", body: "step one" } }),
      );
      expect(refused.code).toBe("core.grant.required");
      const command = (refused.hint as string).match(/`([^`]+)`/)?.[1] ?? "";
      expect(command).toBe("rta grant allow note.add --agent claude --ttl 5m");
      // A short ttl instead of five minutes, so the test can watch it expire.
      const ran = await runLiterally(command.replace("--ttl 5m", "--ttl 2s"), env);
      expect(ran).toEqual({ code: 0, stderr: expect.stringMatching(/^a grant of note\.add for agent claude/) });
      const ok = await s.client.callTool({ name: "note_add", arguments: { title: "plan", body: "step one" } });
      expect(ok.isError).toBeFalsy();
      expect(resultJson(ok)).toMatchObject({ type: "object", value: { title: "plan", bytes: 8 } });
      await Bun.sleep(2100);
      const expired = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "plan", body: "again" } }),
      );
      expect(expired.code).toBe("core.grant.required");
      expect(expired.message).toMatch(/expired/);
    } finally {
      await s.close();
    }
  });
});

describe("a record that reads as an option", () => {
  test("the hint for a record starting with '-', run literally, narrows the grant to that record and no other", async () => {
    const { data, config, env } = dirsEnv();
    const root = tempDir();
    const s = await connect("legacy", ["--agent", "claude", "--root", root], {
      dataDir: data,
      env: { RTA_CONFIG_DIR: config },
    });
    try {
      for (const path of ["--agent=claude", "-x", "--"]) {
        const refused = resultJson(await s.client.callTool({ name: "fs_write", arguments: { path, content: "x" } }));
        expect(refused.code).toBe("core.grant.required");
        const command = (refused.hint as string).match(/`([^`]+)`/)?.[1] ?? "";
        const ran = await runLiterally(command, env);
        expect(ran).toEqual({ code: 0, stderr: expect.stringMatching(/^a grant of fs\.write for agent claude/) });
        expect(ran.stderr).not.toContain("rta: ");
        const ok = await s.client.callTool({ name: "fs_write", arguments: { path, content: "x" } });
        expect({ path, ok: !ok.isError }).toEqual({ path, ok: true });
      }
      const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout);
      expect(listed.grants.map((g: { record: string | null }) => g.record)).toEqual(["--agent=claude", "-x", "--"]);
      const other = resultJson(
        await s.client.callTool({ name: "fs_write", arguments: { path: "victim.txt", content: "x" } }),
      );
      expect(other.code).toBe("core.grant.required");
    } finally {
      await s.close();
    }
  });
});

describe("what a grant is narrowed to", () => {
  test("a URL or a port is refused with the host alone in the hint; a path record is compared written plainly", async () => {
    const { env, data, config } = dirsEnv();
    const url = await rta(
      ["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "https://Example.test/x"],
      { env },
    );
    expect(url.stderr).toContain("--host example.test");
    const port = await rta(["grant", "allow", "http", "--agent", "claude", "--ttl", "5m", "--host", "127.0.0.1:8080"], {
      env,
    });
    expect(port.stderr).toContain("--host 127.0.0.1");
    expect(
      (await rta(["grant", "allow", "http.get", "--agent", "claude", "--ttl", "5m", "--host", "127.0.0.1"], { env }))
        .code,
    ).toBe(0);
    expect(
      (await rta(["grant", "allow", "fs.write", "./plans//a", "--agent", "claude", "--ttl", "5m", "--json"], { env }))
        .stdout,
    ).toContain('"record":"plans/a"');
    for (const [host, stored] of [
      ["_dmarc.example.test", "_dmarc.example.test"],
      ["bücher.test", "xn--bcher-kva.test"],
      ["[::1]", "::1"],
    ] as const) {
      const r = await rta(["grant", "allow", "net.dns", "--agent", "claude", "--ttl", "5m", "--host", host, "--json"], {
        env,
      });
      expect(JSON.parse(r.stdout).host).toBe(stored);
    }
    const root = tempDir();
    const s = await connect("modern", ["--agent", "claude", "--root", root], {
      dataDir: data,
      env: { RTA_CONFIG_DIR: config },
    });
    try {
      expect(
        (await rta(["grant", "allow", "fs.write", "./b.txt", "--agent", "claude", "--ttl", "5m"], { env })).code,
      ).toBe(0);
      const ok = await s.client.callTool({ name: "fs_write", arguments: { path: "b.txt", content: "x" } });
      expect(resultJson(ok)).toMatchObject({ type: "object", value: { created: true } });
    } finally {
      await s.close();
    }
  });
});

describe("locks", () => {
  test("a lock set while the server runs stops the agent's next call, free reads included; lifting it restores them", async () => {
    const { data, config, env } = dirsEnv();
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
      const locked = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
      expect(locked.code).toBe("core.lock.locked");
      expect((await rta(["lock", "lift", "--agent", "claude"], { env })).code).toBe(0);
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });
});

describe("a lock on a name spelled in other case", () => {
  test("stops the agent whatever the case it was typed in, and is lifted the same way; a grant's name stays exact", async () => {
    const { data, config, env } = dirsEnv();
    // with no --agent the name is the client's, made into one: Claude-Desktop
    const s = await connect("modern", [], {
      dataDir: data,
      clientName: "Claude Desktop",
      env: { RTA_CONFIG_DIR: config },
    });
    try {
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      expect((await rta(["lock", "--agent", "claude-desktop"], { env })).code).toBe(0);
      const locked = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
      expect(locked.code).toBe("core.lock.locked");
      expect((await rta(["lock", "lift", "--agent", "CLAUDE-DESKTOP"], { env })).code).toBe(0);
      expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      expect(
        (await rta(["grant", "allow", "note.add", "--agent", "claude-desktop", "--ttl", "5m"], { env })).code,
      ).toBe(0);
      const refused = resultJson(await s.client.callTool({ name: "note_add", arguments: { title: "t", body: "b" } }));
      expect(refused.code).toBe("core.grant.required");
      // taking back is the safe way to be broad: a revoke in other case ends the agent's grants
      expect(
        (await rta(["grant", "allow", "note.add", "--agent", "Claude-Desktop", "--ttl", "5m"], { env })).code,
      ).toBe(0);
      expect((await rta(["grant", "revoke", "--agent", "claude-desktop"], { env })).code).toBe(0);
      const states = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout).grants.map(
        (g: { state: string }) => g.state,
      );
      expect(states).toEqual(["revoked", "revoked"]);
      // and what shows an agent finds it the same way: its grants, and its calls on the record
      const listed = JSON.parse((await rta(["grant", "list", "--agent", "CLAUDE-desktop", "--json"], { env })).stdout);
      expect(listed.grants).toHaveLength(2);
      const log = await rta(["agent", "log", "--agent", "claude-desktop", "--json"], { env });
      expect(log.stdout).toContain("Claude-Desktop");
    } finally {
      await s.close();
    }
  });
});

describe("the team ceiling", () => {
  test("never makes grant allow refuse, and refuses a call under a grant issued before the policy changed", async () => {
    const { data, config, env } = dirsEnv();
    expect((await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "policy.toml"), 'never = ["note.add"]\n');
    const refusedIssue = await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m"], { env });
    expect(refusedIssue.code).toBe(3);
    expect(refusedIssue.stderr).toContain(
      "rta: error: the team policy says note.add is never granted (core.grant.ceiling)",
    );
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const r = resultJson(await s.client.callTool({ name: "note_add", arguments: { title: "x", body: "y" } }));
      expect(r.code).toBe("core.grant.ceiling");
    } finally {
      await s.close();
    }
  });
});

describe("concurrency", () => {
  for (const maxUses of [1, 50]) {
    test(`two servers sharing a data dir spend a ${maxUses}-use grant exactly ${maxUses} time(s) across 200 concurrent calls`, async () => {
      const { data, config, env } = dirsEnv();
      const issued = await rta(
        ["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m", "--max-uses", String(maxUses), "--json"],
        { env },
      );
      expect(issued.code).toBe(0);
      const grantId = JSON.parse(issued.stdout).id as string;
      const servers = await Promise.all(
        [0, 1].map(() => connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } })),
      );
      try {
        const calls = Array.from({ length: 200 }, (_, i) =>
          (servers[i % 2] as (typeof servers)[number]).client.callTool({
            name: "note_add",
            arguments: { title: `n${i}`, body: "x" },
          }),
        );
        const results = await Promise.all(calls);
        const ok = results.filter((r) => !r.isError).length;
        const refused = results.filter((r) => r.isError && resultJson(r).code === "core.grant.required").length;
        expect(ok).toBe(maxUses);
        expect(refused).toBe(200 - maxUses);
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
      const spent = readRecord(join(data, "agent-log.jsonl")).lines.filter((l) => !l.kind && l.grant === grantId);
      expect(spent).toHaveLength(maxUses);
      const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout);
      expect(listed.grants[0]).toMatchObject({ id: grantId, uses: maxUses, max_uses: maxUses, state: "spent" });
    });
  }
});

describe("a duration whose end is not a date", () => {
  test("grant allow, lock and token new refuse a ttl past a century as core.input.range, and nothing is issued", async () => {
    const { env } = dirsEnv();
    for (const args of [
      ["grant", "allow", "fs.write", "--agent", "x", "--ttl", "99999999d"],
      ["grant", "allow", "fs.write", "--agent", "x", "--ttl", "36501d"],
      ["lock", "--agent", "x", "--ttl", "99999999d"],
      ["mcp", "token", "new", "--agent", "x", "--ttl", "99999999d"],
    ]) {
      const r = await rta(args, { env });
      expect({ args, code: r.code, range: r.stderr.includes("(core.input.range)"), out: r.stdout }).toEqual({
        args,
        code: 2,
        range: true,
        out: "",
      });
    }
    const state = await Promise.all([
      rta(["grant", "list", "--json"], { env }),
      rta(["lock", "list", "--json"], { env }),
      rta(["mcp", "token", "list", "--json"], { env }),
    ]);
    expect(state.map((s) => JSON.parse(s.stdout))).toEqual([
      { grants: [], total: 0 },
      { locks: [], total: 0 },
      { tokens: [], total: 0 },
    ]);
    // a century is still a duration, and the grant it makes can be listed and read by its agent
    expect((await rta(["grant", "allow", "fs.write", "--agent", "x", "--ttl", "36500d"], { env })).code).toBe(0);
    const s = await connect("legacy", ["--agent", "x"], {
      dataDir: env.RTA_DATA_DIR,
      env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR },
    });
    try {
      const read = await s.client.readResource({ uri: "rta://grants" });
      const text = (read.contents[0] as { text: string }).text;
      expect(JSON.parse(text).grants).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});

describe("an empty duration", () => {
  // A script's unset variable (`--ttl "$TTL"`) hands in an empty duration: it is none, never "for good".
  test("grant allow, lock and token new refuse --ttl '' as core.input.invalid, and nothing is issued", async () => {
    const { env } = dirsEnv();
    for (const args of [
      ["grant", "allow", "fs.write", "--agent", "x", "--ttl", ""],
      ["lock", "--agent", "x", "--ttl", ""],
      ["mcp", "token", "new", "--agent", "x", "--ttl", ""],
    ]) {
      const r = await rta(args, { env });
      expect({ args, code: r.code, invalid: r.stderr.includes("(core.input.invalid)"), out: r.stdout }).toEqual({
        args,
        code: 2,
        invalid: true,
        out: "",
      });
    }
    const state = await Promise.all([
      rta(["grant", "list", "--json"], { env }),
      rta(["lock", "list", "--json"], { env }),
      rta(["mcp", "token", "list", "--json"], { env }),
    ]);
    expect(state.map((s) => JSON.parse(s.stdout))).toEqual([
      { grants: [], total: 0 },
      { locks: [], total: 0 },
      { tokens: [], total: 0 },
    ]);
  });
});

describe("a team policy's never list", () => {
  test("a name no capability or area could have (a tool's name, capitals, a space) makes the policy unreadable, so it never silently stops nothing", async () => {
    const { data, config, env } = dirsEnv();
    expect((await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
    for (const slip of ["fs_write", "FS.WRITE", "fs.write "]) {
      writeFileSync(join(config, "policy.toml"), `never = [${JSON.stringify(slip)}]\n`);
      const issued = await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "5m"], { env });
      expect({ slip, code: issued.code, said: issued.stderr.includes("(core.policy.unreadable)") }).toEqual({
        slip,
        code: 1,
        said: true,
      });
      const doctor = JSON.parse((await rta(["doctor", "--json"], { env })).stdout);
      expect(doctor.findings.find((f: { check: string }) => f.check === "team policy").status).toBe("fail");
    }
    // the grant issued before the policy was written is not spent while the policy does not read
    const root = tempDir();
    const s = await connect("legacy", ["--agent", "claude", "--root", root], {
      dataDir: data,
      env: { RTA_CONFIG_DIR: config },
    });
    try {
      const r = resultJson(await s.client.callTool({ name: "fs_write", arguments: { path: "a.txt", content: "x" } }));
      expect(r.code).toBe("core.policy.unreadable");
    } finally {
      await s.close();
    }
  });
});

describe("a grant narrowed to a connection", () => {
  test("covers a call whose profile runs against that connection, and not one whose profile runs against another", async () => {
    const { data, config, env } = dirsEnv();
    const [work, home] = [tempDir(), tempDir()];
    writeFileSync(
      join(config, "config.toml"),
      `[connections.work-notes]\narea = "note"\nfolder = "${work}"\n` +
        `[connections.home-notes]\narea = "note"\nfolder = "${home}"\n` +
        `[profiles.work]\narea = "note"\nconnection = "work-notes"\n` +
        `[profiles.home]\narea = "note"\nconnection = "home-notes"\n`,
    );
    for (const [profile, connection] of [
      ["work", "work-notes"],
      ["home", "work-notes"],
    ])
      expect(
        (
          await rta(
            ["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m", "--profile", profile as string].concat([
              "--connection",
              connection as string,
            ]),
            { env },
          )
        ).code,
      ).toBe(0);
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const ok = await s.client.callTool({ name: "note_add", arguments: { title: "a", body: "b", profile: "work" } });
      expect(ok.isError).toBeFalsy();
      const other = resultJson(
        await s.client.callTool({ name: "note_add", arguments: { title: "a", body: "b", profile: "home" } }),
      );
      expect(other.code).toBe("core.grant.required");
      expect(other.hint).toContain("--connection home-notes --profile home");
      // a connection is reached only through a profile, so a grant naming one without a profile would cover nothing
      const alone = await rta(
        ["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m", "--connection", "work-notes"],
        { env },
      );
      expect({ code: alone.code, said: alone.stderr.includes("(core.input.invalid)") }).toEqual({
        code: 2,
        said: true,
      });
    } finally {
      await s.close();
    }
  });
});
