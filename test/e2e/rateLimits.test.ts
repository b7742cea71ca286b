/**
 * End to end: config's [limits] over stdio with the official client, on both eras: a limit hit, one bucket shared
 * by two servers on one data dir, resource reads counted, the refusal on the record, and config check and doctor
 * on [limits]. No test here waits for a bucket to refill: each limit is far from refilling while it runs.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { startHttp } from "../support/httpServer.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** A data dir and a config dir whose config.toml says `text`. */
function dirs(text: string): { RTA_DATA_DIR: string; RTA_CONFIG_DIR: string } {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  writeFileSync(join(env.RTA_CONFIG_DIR, "config.toml"), text);
  return env;
}

const serve = (era: Era, env: { RTA_DATA_DIR: string; RTA_CONFIG_DIR: string }, agent = "claude") =>
  connect(era, ["--agent", agent], { dataDir: env.RTA_DATA_DIR, env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR } });

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`[limits], ${era} era`, () => {
    test("past the limit a call is refused with the seconds to wait; other tools and agents keep their own", async () => {
      const env = dirs('[limits]\n[limits.capabilities]\n"sys.info" = 2\n');
      const s = await serve(era, env);
      try {
        for (let i = 0; i < 2; i++)
          expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
        const third = await s.client.callTool({ name: "sys_info", arguments: {} });
        expect(third.isError).toBe(true);
        const body = resultJson(third) as { code: string; message: string; hint: string; retry_after_seconds: number };
        expect(body.code).toBe("core.rate.limited");
        expect(body.retry_after_seconds).toBeGreaterThanOrEqual(1);
        expect(body.retry_after_seconds).toBeLessThanOrEqual(30);
        expect(body.message).toBe(
          `sys.info is limited to 2 calls a minute for agent claude: the next can be sent in ${body.retry_after_seconds} s`,
        );
        expect(body.hint).toContain("retry_after_seconds");
        // proc.list has no line and there is no calls_per_minute: it is not limited
        for (let i = 0; i < 4; i++)
          expect((await s.client.callTool({ name: "proc_list", arguments: { limit: 1 } })).isError).toBeFalsy();
      } finally {
        await s.close();
      }
      const other = await serve(era, env, "cursor");
      try {
        expect((await other.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      } finally {
        await other.close();
      }
      // the refusal is on the record, with its words
      const log = JSON.parse((await rta(["agent", "log", "--json"], { env })).stdout) as {
        agent: string;
        capability: string;
        outcome: string;
        error?: { message: string };
      }[];
      const refused = log.filter((l) => l.outcome === "core.rate.limited");
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ agent: "claude", capability: "sys_info" });
      expect(refused[0]?.error?.message).toContain("limited to 2 calls a minute");
    });

    test("two servers sharing a data dir share the bucket exactly, however their calls interleave", async () => {
      const env = dirs("[limits]\ncalls_per_minute = 5\n");
      const a = await serve(era, env);
      const b = await serve(era, env);
      try {
        const calls = [];
        for (let i = 0; i < 8; i++)
          for (const s of [a, b]) calls.push(s.client.callTool({ name: "sys_info", arguments: {} }));
        const results = await Promise.all(calls);
        expect(results.filter((r) => !r.isError)).toHaveLength(5);
        expect(results.filter((r) => r.isError).map((r) => resultJson(r).code)).toEqual(
          Array(11).fill("core.rate.limited"),
        );
      } finally {
        await a.close();
        await b.close();
      }
    });

    test("resource reads count, each resource a bucket of its own, refused as a JSON-RPC error with the wait", async () => {
      const env = dirs("[limits]\ncalls_per_minute = 2\n");
      const s = await serve(era, env);
      try {
        for (let i = 0; i < 2; i++) await s.client.readResource({ uri: "rta://grants" });
        const err = await s.client.readResource({ uri: "rta://grants" }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ProtocolError);
        const e = err as ProtocolError;
        expect(e.code).toBe(-32000);
        expect(e.message).toContain("rta://grants is limited to 2 reads a minute for agent claude");
        expect(e.data).toMatchObject({ code: "core.rate.limited", retry_after_seconds: expect.any(Number) });
        // cards are a bucket of their own, whichever card, and a tool call is not spent by reads
        await s.client.readResource({ uri: "rta://capability/proc.list" });
        await s.client.readResource({ uri: "rta://capability/fs.read" });
        const card = await s.client.readResource({ uri: "rta://capability/sys.info" }).catch((x: unknown) => x);
        expect((card as ProtocolError).data).toMatchObject({ code: "core.rate.limited" });
        expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
      } finally {
        await s.close();
      }
      const log = JSON.parse((await rta(["agent", "log", "--json"], { env })).stdout) as {
        capability: string;
        outcome: string;
      }[];
      expect(log.filter((l) => l.outcome === "core.rate.limited").map((l) => l.capability)).toEqual([
        "rta://grants",
        "rta://capability/{name}",
      ]);
    });
  });
}

test("an HTTP server and a stdio server on one data dir spend the token's agent from one bucket", async () => {
  const env = dirs("[limits.capabilities]\nsys = 3\n");
  const srv = await startHttp([], { data: env.RTA_DATA_DIR, config: env.RTA_CONFIG_DIR });
  const stdio = await serve("modern", env);
  const http = new Client({ name: "http-e2e", version: "1" });
  try {
    await http.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${await srv.token("claude")}` } },
      }),
    );
    const outcomes: string[] = [];
    for (const c of [http, stdio.client, http, stdio.client]) {
      const r = await c.callTool({ name: "sys_info", arguments: {} });
      outcomes.push(r.isError ? String(resultJson(r).code) : "ok");
    }
    expect(outcomes).toEqual(["ok", "ok", "ok", "core.rate.limited"]);
  } finally {
    await http.close();
    await stdio.close();
    await srv.stop();
  }
});

test("a person's own calls at the terminal are never limited", async () => {
  const env = dirs("[limits]\ncalls_per_minute = 1\n");
  for (let i = 0; i < 3; i++) expect((await rta(["sys", "info", "--json"], { env })).code).toBe(0);
});

test("rta config check and rta doctor take [limits] that reads, and name each line that does not", async () => {
  const good = dirs('[limits]\ncalls_per_minute = 600\n[limits.capabilities]\n"fs.read" = 120\nproc = 30\n');
  const fine = await rta(["config", "check"], { env: good });
  expect(fine.code).toBe(0);
  expect(fine.stdout).toEndWith("config.toml: fine\n");
  const shown = JSON.parse((await rta(["config", "show", "--json"], { env: good })).stdout);
  expect(shown.limits).toEqual({ calls_per_minute: 600, capabilities: { "fs.read": 120, proc: 30 } });
  const bad = dirs(
    '[limits]\ncalls_per_minute = 0\nburst = 5\n[limits.capabilities]\nfs_read = 3\n"fs.read" = "many"\n',
  );
  const check = await rta(["config", "check"], { env: bad });
  expect(check.code).toBe(2);
  expect(check.stdout + check.stderr).toContain(
    "[limits] calls_per_minute must be a whole number of calls a minute, from 1 to 600000",
  );
  expect(check.stdout + check.stderr).toContain(
    '[limits] has no setting "burst" (calls_per_minute and capabilities are known)',
  );
  expect(check.stdout + check.stderr).toContain(
    '[limits.capabilities] "fs_read" names no capability or area (write fs.read, not fs_read)',
  );
  expect(check.stdout + check.stderr).toContain('[limits.capabilities] "fs.read" must be a whole number');
  // a name spelled right that nothing has limits nothing: said, as [defaults] says one
  const typo = await rta(["config", "check"], { env: dirs('[limits.capabilities]\n"fs.raed" = 3\nfs = 9\n') });
  expect(typo.code).toBe(2);
  expect(typo.stdout + typo.stderr).toContain(
    '[limits.capabilities] "fs.raed": no capability or area is named fs.raed',
  );
  expect(typo.stdout + typo.stderr).not.toContain('"fs":');
  const doctor = await rta(["doctor"], { env: bad });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toContain("fail\tconfig\t");
  expect(doctor.stdout).toContain('"fs_read" names no capability or area');
});
