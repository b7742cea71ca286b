/**
 * End to end: audit.deps in the built binary over the fixture tree, against a
 * stand-in for osv.dev on 127.0.0.1 named in config: piped, --json, on a
 * terminal's absence of osv (offline said), over MCP with the official
 * client in both eras, and stopped by a lock.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, realpathSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { startOsv } from "../support/osvStandIn.ts";
import { noStack, rta } from "../support/rta.ts";
import { startStandIn } from "../support/standIn.ts";

const osv = startOsv();
afterAll(() => osv.stop());
const TREE = join(import.meta.dir, "../fixtures/deps/tree");

function setup(url = osv.url) {
  const root = realpathSync(tempDir());
  cpSync(TREE, join(root, "proj"), { recursive: true });
  const config = tempDir();
  const data = tempDir();
  writeFileSync(join(config, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${url}"\n`);
  return { root, proj: join(root, "proj"), env: { RTA_CONFIG_DIR: config, RTA_DATA_DIR: data } };
}

describe("rta audit deps", () => {
  test("piped: one tab-separated row per vulnerability, most severe first, no clean package", async () => {
    const { proj, env } = setup();
    const r = await rta(["audit", "deps", proj], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const rows = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(rows.length).toBe(15);
    expect(rows[0]?.slice(0, 7)).toEqual([
      "org.apache.logging.log4j:log4j-core",
      "2.14.1",
      "Maven",
      "GHSA-jfh8-c2jp-5v3q",
      "critical",
      "10",
      "2.15.0",
    ]);
    expect(rows[0]?.[7]).toBe(join(proj, "maven/pom.xml"));
    expect(r.stdout).not.toContain("is-number");
  });

  test("--json: the table with its columns; --all adds the clean ones with id null", async () => {
    const { proj, env } = setup();
    const r = await rta(["audit", "deps", proj, "--all", "--json"], { env });
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout);
    expect(t.columns).toEqual([
      "package",
      "version",
      "ecosystem",
      "id",
      "severity",
      "score",
      "fixed",
      "file",
      "summary",
      "cvss",
    ]);
    expect(t.total).toBe(15 + 18);
    const clean = t.rows
      .filter((row: { id: unknown }) => row.id === null)
      .map((row: { package: string }) => row.package);
    expect(clean).toContain("six");
  });

  test("osv unreachable: the dependencies listed, the reason on stderr, exit 4", async () => {
    const down = startOsv();
    const url = down.url;
    await down.stop();
    const { proj, env } = setup(url);
    const r = await rta(["audit", "deps", proj], { env });
    expect(r.code).toBe(4);
    expect(r.stdout.trimEnd().split("\n").length).toBe(32);
    expect(r.stderr).toContain("rta: warning: osv.dev could not be reached");
    expect(r.stderr).toContain("no vulnerability was checked");
    expect(noStack(r.stderr)).toBe(true);
  });

  test("a path that is a file, or outside the roots, is refused with a code and a hint", async () => {
    const { proj, env } = setup();
    const file = await rta(["audit", "deps", join(proj, "go/go.sum")], { env });
    expect(file.code).toBe(1);
    expect(file.stderr).toContain("is not a directory (fs.notdir)\nrta: hint: ");
    expect(noStack(file.stderr)).toBe(true);
  });
});

describe("audit_deps over MCP", () => {
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: free for an agent, osv_url not offered, the card says what leaves`, async () => {
      const { root, proj, env } = setup();
      const s = await connect(era, ["--agent", "claude", "--root", root], { dataDir: env.RTA_DATA_DIR, env });
      try {
        const { tools } = await s.client.listTools();
        const tool = tools.find((t) => t.name === "audit_deps");
        expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain("osv_url");
        expect(tool?.description).toContain("osv.dev");
        expect(tool?.description).toContain("name, version and ecosystem");
        expect(tool?.annotations?.openWorldHint).toBe(true);
        const t = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: proj } }));
        expect(t.total).toBe(15);
        const aimed = resultJson(
          await s.client.callTool({ name: "audit_deps", arguments: { path: proj, osv_url: "http://127.0.0.1:9" } }),
        );
        expect(aimed.code).toBe("core.mcp.badargs");
      } finally {
        await s.close();
      }
    });
  }

  test("offline, the agent is told why there are no vulnerabilities", async () => {
    const down = startOsv();
    const url = down.url;
    await down.stop();
    const { root, proj, env } = setup(url);
    const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: env.RTA_DATA_DIR, env });
    try {
      const t = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: proj } })) as {
        total: number;
        warnings: { code: string; message: string }[];
      };
      expect(t.total).toBe(32);
      expect(t.warnings[0]?.code).toBe("audit.deps.offline");
      expect(t.warnings[0]?.message).toContain("no vulnerability was checked");
    } finally {
      await s.close();
    }
  });

  test("a never entry naming it has no effect, and rta doctor says a lock is the way", async () => {
    const { root, proj, env } = setup();
    writeFileSync(join(env.RTA_CONFIG_DIR, "policy.toml"), 'never = ["audit.deps"]\n');
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: env.RTA_DATA_DIR, env });
    try {
      const t = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: proj } }));
      expect(t.total).toBe(15);
    } finally {
      await s.close();
    }
    const doctor = await rta(["doctor"], { env });
    expect(doctor.stdout).toContain('never names "audit.deps", a free read');
    expect(doctor.stdout).toContain("rta lock audit.deps");
  });

  test("a lock stops it, and lifting the lock lets it run again", async () => {
    const { root, proj, env } = setup();
    const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: env.RTA_DATA_DIR, env });
    try {
      const before = osv.asked.length;
      expect((await rta(["lock", "audit.deps", "--agent", "claude"], { env })).code).toBe(0);
      const locked = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: proj } }));
      expect(locked.code).toBe("core.lock.locked");
      expect(osv.asked.length).toBe(before);
      expect((await rta(["lock", "lift", "--agent", "claude"], { env })).code).toBe(0);
      const t = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: proj } }));
      expect(t.total).toBe(15);
    } finally {
      await s.close();
    }
    const log = await rta(["agent", "log", "--agent", "claude", "--json"], { env });
    const lines = JSON.stringify(JSON.parse(log.stdout));
    expect(lines).toContain("audit_deps");
    expect(lines).toContain("core.lock.locked");
  });
});

describe("a tree of lockfiles too large to hold", () => {
  // Parsed, a lockfile takes many times its size: a hostile tree of many large ones would fill the server's memory.
  test("the walk stops past 128 MiB of lockfiles together, and says where, over MCP", async () => {
    const root = realpathSync(tempDir());
    for (const dir of ["a", "b", "c"]) mkdirSync(join(root, "big", dir), { recursive: true });
    // two of 64 MiB (each at the single file's bound), sparse, and not JSON: read, then refused fast by the parser
    for (const dir of ["a", "b"]) {
      writeFileSync(join(root, "big", dir, "package-lock.json"), "");
      truncateSync(join(root, "big", dir, "package-lock.json"), 64 * 1024 * 1024);
    }
    writeFileSync(join(root, "big/c/requirements.txt"), "six==1.16.0\n");
    const data = tempDir();
    const config = tempDir();
    writeFileSync(join(config, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${osv.url}"\n`);
    const s = await connect("modern", ["--agent", "claude", "--root", root], {
      dataDir: data,
      env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
    });
    try {
      const t = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: "big", all: true } }));
      const warnings = t.warnings as { code: string; message: string }[];
      expect(warnings.map((w) => w.code)).toEqual([
        "audit.deps.unreadable",
        "audit.deps.unreadable",
        "audit.deps.unreadable",
      ]);
      expect(warnings[2]?.message).toBe(
        'the lockfiles under "big" are over 128 MiB together: "big/c/requirements.txt" and those after it were not read; audit its directories one at a time',
      );
      expect(t.total).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe("an osv.dev that names no end of vulnerabilities", () => {
  test("records asked for up to 1,000 in a call, the rest listed by id, and a warning says so", async () => {
    const many = startStandIn({
      "POST /v1/querybatch": () =>
        Response.json({ results: [{ vulns: Array.from({ length: 1200 }, (_, i) => ({ id: `X-${i}` })) }] }),
    });
    try {
      const root = realpathSync(tempDir());
      mkdirSync(join(root, "p"));
      writeFileSync(join(root, "p/requirements.txt"), "six==1.16.0\n");
      const data = tempDir();
      const config = tempDir();
      writeFileSync(join(config, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${many.url}"\n`);
      const s = await connect("legacy", ["--agent", "claude", "--root", root], {
        dataDir: data,
        env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
      });
      try {
        const t = resultJson(await s.client.callTool({ name: "audit_deps", arguments: { path: "p" } }));
        expect(t.total).toBe(1200);
        expect(t.warnings).toEqual([
          {
            code: "audit.deps.partial",
            message:
              "osv.dev named more than one call asks about: 200 vulnerabilities are listed with no severity or fix; audit a smaller directory",
          },
        ]);
        expect(many.asked.length).toBe(1 + 1000);
      } finally {
        await s.close();
      }
    } finally {
      await many.stop();
    }
  });
});
