/**
 * End to end: files an agent may write that a later start of rta would read.
 * A standalone Bun executable, by default, loads bunfig.toml (whose `preload`
 * runs code) and the .env files of the directory it starts in, and the
 * directory it starts in is the default root. So an agent with an fs.write
 * grant could run code as the operator, or move rta's config and data dirs
 * to ones it planted, at the operator's next `rta` in that directory.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";

describe("a project dir an agent wrote, where the operator runs rta next", () => {
  test("its bunfig.toml runs nothing and its .env files move none of rta's places", async () => {
    const root = realpathSync(tempDir());
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    expect((await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const marker = join(root, "ran-as-operator");
    const planted = join(root, "planted");
    const files: Record<string, string> = {
      "bunfig.toml": 'preload = ["./preload.js"]\n',
      "preload.js": `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");\n`,
      ".env": `RTA_CONFIG_DIR=${planted}/config\n`,
      ".env.local": `RTA_DATA_DIR=${planted}/data\n`,
      ".env.production": `RTA_KV_IDENTITY=${planted}/identity\n`,
    };
    try {
      for (const [path, content] of Object.entries(files)) {
        const wrote = resultJson(await s.client.callTool({ name: "fs_write", arguments: { path, content } }));
        expect(wrote).toMatchObject({ value: { created: true } });
      }
    } finally {
      await s.close();
    }
    // The operator's next command in that directory, with rta's dirs left to their defaults.
    const home = tempDir();
    const proc = Bun.spawn([RTA, "doctor", "--json"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: home, NODE_ENV: "production" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const findings = JSON.parse(out).findings as { check: string; detail: string }[];
    const detail = (check: string) => findings.find((f) => f.check === check)?.detail ?? "";
    expect(detail("config dir")).toContain(join(home, ".config/rta"));
    expect(detail("data dir")).toContain(join(home, ".local/share/rta"));
    expect(out).not.toContain(planted);
  }, 30_000);
});

describe("rta's platform dirs, when the server's are set elsewhere", () => {
  // A registration carries RTA_DATA_DIR and RTA_CONFIG_DIR; the operator's shell may not, and an rta started
  // there reads ~/.config/rta and ~/.local/share/rta. With the home under a root, those are planted as easily.
  test("are withheld too: an agent plants no config, policy or record key there", async () => {
    const root = realpathSync(tempDir());
    const home = join(root, "home");
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), HOME: home };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      expect(await call("fs_mkdir", { path: "stage/rta", parents: true })).toMatchObject({ value: {} });
      expect(await call("fs_write", { path: "stage/rta/config.toml", content: 'roots = ["/"]\n' })).toMatchObject({
        value: {},
      });
      const cases: [string, Record<string, unknown>][] = [
        ["fs_mkdir", { path: "home/.config/rta", parents: true }],
        ["fs_write", { path: "home/.config/rta/policy.toml", content: 'max_ttl = "1000h"\n' }],
        ["fs_move", { from: "stage/rta", to: "home/.config/rta" }],
        ["fs_move", { from: "stage", to: "home/.config" }],
        ["fs_mkdir", { path: "home/.local/share/rta", parents: true }],
        ["fs_write", { path: "home/.local/share/rta/record.key", content: "k" }],
      ];
      for (const [name, args] of cases)
        expect([name, (await call(name, args)).code]).toEqual([name, "core.path.withheld"]);
      expect(existsSync(join(home, ".config/rta"))).toBe(false);
      expect(existsSync(join(home, ".local/share/rta"))).toBe(false);
    } finally {
      await s.close();
    }
  }, 30_000);
});

describe("rta's platform dirs, when the server's XDG dirs are set elsewhere", () => {
  // A client may start the server with XDG_CONFIG_HOME and XDG_DATA_HOME set; a shell, cron or a service may not,
  // and an rta started there reads ~/.config/rta and keeps its record in ~/.local/share/rta.
  test("the ones under the home are withheld too", async () => {
    const root = realpathSync(tempDir());
    const home = join(root, "home");
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: tempDir(),
      XDG_DATA_HOME: tempDir(),
      RTA_DATA_DIR: "",
      RTA_CONFIG_DIR: "",
    };
    expect((await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const s = await connect("modern", ["--agent", "claude", "--root", root], { env });
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      for (const [name, args] of [
        ["fs_mkdir", { path: "home/.config/rta", parents: true }],
        ["fs_mkdir", { path: "home/.local/share/rta", parents: true }],
      ] as [string, Record<string, unknown>][])
        expect([name, (await call(name, args)).code]).toEqual([name, "core.path.withheld"]);
      expect(existsSync(join(home, ".config/rta"))).toBe(false);
    } finally {
      await s.close();
    }
  }, 30_000);
});
