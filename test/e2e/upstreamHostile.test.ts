/**
 * End to end: hostile upstreams behind the built binary. A schema's pattern
 * that backtracks under RegExp is matched by RE2, so an agent's argument
 * cannot hold the server; an upstream's own `profile` input is sent on like
 * any other, and a grant's --args on it covers that call only; a tool whose
 * name holds a terminal escape is left out; the operator's secret in a
 * failure's reason is masked; and an answer sent on the stream a GET opened
 * is held to the bound as it is read, never whole.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { startHostileHttp } from "../upstreams/hostileHttp.ts";

const STDIO = join(import.meta.dir, "..", "upstreams", "hostileStdio.ts");
const SECRET = `sec-${crypto.randomUUID()}`;
const http = startHostileHttp(100 * 1024 * 1024);
afterAll(() => http.stop());

function setUp() {
  const data = tempDir();
  const config = tempDir();
  const command = (...args: string[]) => JSON.stringify([process.execPath, STDIO, ...args]);
  writeFileSync(
    join(config, "config.toml"),
    [
      "[upstreams.hs]",
      `command = ${command()}`,
      "[upstreams.dup]",
      `command = ${command("dup")}`,
      `env = { SECRET = ${JSON.stringify(SECRET)} }`,
      "[upstreams.getter]",
      `url = ${JSON.stringify(http.url)}`,
      "",
    ].join("\n"),
  );
  return { data, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data } };
}

function peakKiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

describe("hostile upstreams", () => {
  test("patterns, an input named profile, escapes in names, a masked reason, a GET stream's answer", async () => {
    const { data, env } = setUp();
    for (const name of ["hs", "getter"]) await approveUpstream(env, name);
    const server = await connect("modern", [], { dataDir: data, env });
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      resultJson(await server.client.callTool({ name, arguments: args }));
    try {
      const names = (await server.client.listTools()).tools.map((t) => t.name);
      expect(names.filter((n) => n.startsWith("hs_")).sort()).toEqual(["hs_check", "hs_deploy"]);

      // ^(a+)+$ on 40 a's and a ! is hours of RegExp's backtracking; RE2 says no at once, and the server serves on
      expect(await call("hs_check", { s: `${"a".repeat(40)}!` })).toMatchObject({ code: "core.mcp.badargs" });
      expect(await call("hs_check", { s: "aaa" })).toEqual({ type: "text", text: 'check got {"s":"aaa"}' });

      // the upstream's own profile input is its own: a grant narrowed to it covers that call, not one without it
      const granted = await rta(
        [
          "grant",
          "allow",
          "hs.deploy",
          "--agent",
          "rta-e2e",
          "--ttl",
          "5m",
          "--yes",
          "--args",
          '{"profile":"staging"}',
        ],
        { env },
      );
      expect(granted.code).toBe(0);
      expect(await call("hs_deploy", {})).toMatchObject({ code: "core.grant.required" });
      expect(await call("hs_deploy", { profile: "staging" })).toEqual({
        type: "text",
        text: 'deploy got {"profile":"staging"}',
      });

      // an answer on the GET's stream is cut at the bound as it is read: the server never holds 100 MB
      expect(await call("getter_big")).toMatchObject({ type: "error", code: "core.result.toolarge" });
      expect(peakKiB(server.pid() as number)).toBeLessThan(120 * 1024);
    } finally {
      await server.close();
    }
    const listed = await rta(["upstream", "list", "--json"], { env });
    const upstreams = (
      JSON.parse(listed.stdout) as { upstreams: { name: string; tools: unknown[]; reason?: string }[] }
    ).upstreams;
    expect(upstreams.find((u) => u.name === "hs")?.tools).toContainEqual({
      tool: "x\u001b]0;title\u0007y",
      capability: null,
      safety: null,
      left_out: "its definition holds a control character at /name",
    });
    expect(upstreams.find((u) => u.name === "dup")?.reason).toBe('it lists the tool "t <upstream secret>" twice');
    const doctor = await rta(["doctor"], { env });
    for (const text of [listed.stdout, doctor.stdout, readFileSync(join(data, "upstreams", "discovered.json"), "utf8")])
      expect(text).not.toContain(SECRET);
  }, 60_000);
});
