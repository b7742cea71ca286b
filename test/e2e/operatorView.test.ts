/**
 * End to end: `rta operator` on a terminal, under tmux at 80×24. Calls from a
 * running server appear on the screen as they happen; a pending consent is
 * approved with a key, and the agent under the cursor locked with another.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";

const socket = join(tempDir(), "tmux.sock");
const tmux = (...args: string[]) =>
  Bun.spawnSync(["tmux", "-S", socket, ...args], { env: { PATH: process.env.PATH ?? "", TERM: "xterm" } });
const screen = () => tmux("capture-pane", "-p").stdout.toString();

/** Waits, a bounded number of looks, for the screen to show `text`; returns the screen. */
async function shows(text: string | RegExp): Promise<string> {
  let seen = "";
  for (let i = 0; i < 200; i++) {
    seen = screen();
    if (typeof text === "string" ? seen.includes(text) : text.test(seen)) return seen;
    await Bun.sleep(25);
  }
  throw new Error(`the screen never showed ${text}:\n${seen}`);
}

afterAll(() => {
  tmux("kill-server");
});

describe("rta operator on a terminal", () => {
  test("shows calls as they happen, approves a consent with `a` and locks the agent with `l`", {
    timeout: 30_000,
  }, async () => {
    const data = tempDir();
    const config = tempDir();
    const root = tempDir();
    writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.stat"]\nconsent = "operator"\n');
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env });
    try {
      const started = tmux(
        "new-session",
        "-d",
        "-x",
        "80",
        "-y",
        "24",
        `env NO_COLOR=1 RTA_DATA_DIR=${data} RTA_CONFIG_DIR=${config} ${RTA} operator`,
      );
      expect(started.exitCode).toBe(0);
      await shows("1 server(s)");
      await s.client.callTool({ name: "sys_info", arguments: {} });
      const calls = await shows(/claude {2}sys_info {2}ok/);
      // it fits 80×24: no line is wider, the keys are on the last line
      const lines = calls.replace(/\n$/, "").split("\n");
      expect(lines.length).toBeLessThanOrEqual(24);
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
      expect(lines.at(-1)).toContain("a approve · d deny · l lock agent · q quit");

      const call = s.client.callTool({ name: "fs_stat", arguments: { path: root } });
      const pending = await shows("PENDING CONSENTS");
      expect(pending).toMatch(/> [0-9a-f]{8} {2}claude {2}fs_stat {2}path=/);
      tmux("send-keys", "a");
      expect(resultJson(await call).type).toBe("object");
      await shows(/fs_stat {2}ok/);

      // the cursor is now on claude's session: `l` locks it, and its next call is refused
      await shows("> claude");
      tmux("send-keys", "l");
      await shows("locked claude");
      const refused = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
      expect(refused).toMatchObject({ type: "error", code: "core.lock.locked" });
      const locks = await rta(["lock", "list"], { env });
      expect(locks.stdout).toContain("claude");

      tmux("send-keys", "q");
      for (let i = 0; i < 200 && tmux("has-session").exitCode === 0; i++) await Bun.sleep(25);
      expect(tmux("has-session").exitCode).not.toBe(0);
    } finally {
      await s.close();
    }
  });
});
