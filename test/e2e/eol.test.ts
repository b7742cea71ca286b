/**
 * End to end: eol.products, eol.check and eol.watch on the built binary, against a stand-in for endoflife.date on
 * 127.0.0.1 set as the operator's api_url; over MCP with the official client: what the agent is told, that it
 * cannot aim the read, that a lock stops it and a never entry does not.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEolStandIn } from "../support/eolStandIn.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { startStandIn } from "../support/standIn.ts";

const standIn = startEolStandIn();
afterAll(() => standIn.stop());

function dirs(extra = "", base = standIn.url) {
  const data = tempDir();
  const config = tempDir();
  writeFileSync(join(config, "config.toml"), `[defaults.eol]\napi_url = "${base}"\n${extra}`);
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

const asked = (path: string) => standIn.asked.filter((a) => a.path === path).length;

describe("eol on the command line", () => {
  test("eol check gives the cycle, its end dates, the days left and the latest patch", async () => {
    const { env } = dirs();
    const started = Date.now();
    const r = await rta(["eol", "check", "node", "20.1.0", "--json"], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout).value;
    expect(v).toMatchObject({
      product: "nodejs",
      label: "Node.js",
      version: "20.1.0",
      cycle: "20",
      release_date: "2023-04-18",
      lts: true,
      support_end: "2024-10-22",
      security_end: "2026-04-30",
      latest: "20.19.2",
      update: "20.19.2",
      data_age: 0,
    });
    // days to the date as the test sees the clock, before or after rta ran (a day may turn between)
    const days = (now: number) =>
      Math.round((Date.parse("2026-04-30T00:00:00Z") - Math.floor(now / 86_400_000) * 86_400_000) / 86_400_000);
    expect([days(started), days(Date.now())]).toContain(v.days_left);
    expect(v.status).toBe(v.days_left <= 0 ? "end of life" : "security fixes only");
  });

  test("the answer is kept a day in the data dir: asked again, the service is not", async () => {
    const { env } = dirs();
    const before = asked("/api/v1/products/ubuntu");
    const first = JSON.parse((await rta(["eol", "check", "ubuntu", "22.04", "--json"], { env })).stdout).value;
    const second = JSON.parse((await rta(["eol", "check", "ubuntu", "22.04.3", "--json"], { env })).stdout).value;
    expect(asked("/api/v1/products/ubuntu")).toBe(before + 1);
    expect(first).toMatchObject({ cycle: "22.04", extended_end: "2032-04-09", latest: "22.04.5" });
    expect(second).toMatchObject({ cycle: "22.04", update: "22.04.5" });
    expect(second.data_age).toBeGreaterThanOrEqual(0);
  });

  test("an unknown product or cycle is said with the names there are", async () => {
    const { env } = dirs();
    const typo = await rta(["eol", "check", "nodjs", "20"], { env });
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toBe(
      'rta: error: endoflife.date has no product "nodjs" (eol.product.unknown)\n' +
        "rta: hint: did you mean nodejs? `rta eol products` lists them\n",
    );
    const cycle = await rta(["eol", "check", "postgresql", "9.6"], { env });
    expect(cycle.stderr).toBe(
      "rta: error: PostgreSQL has no release cycle for version 9.6 (eol.cycle.unknown)\n" +
        "rta: hint: its cycles are 17, 16, 13, 12\n",
    );
  });

  test("with no version, a product rta cannot detect says so with the fix", async () => {
    const { env } = dirs();
    const r = await rta(["eol", "check", "redis"], { env });
    expect(r.stderr).toContain(
      "rta cannot find which version of redis is installed (it can for node, python, debian, ubuntu, postgresql, nginx, kernel, bun) (eol.version.undetected)",
    );
    expect(r.stderr).toContain("rta: hint: give the version: `rta eol check redis VERSION`");
  });

  test("with no version, the kernel's is read from the host", async () => {
    const { env } = dirs();
    const r = await rta(["eol", "check", "kernel", "--json"], { env });
    const release = (await Bun.file("/proc/sys/kernel/osrelease").text()).trim();
    const short = /^\d+\.\d+(\.\d+)?/.exec(release)?.[0] ?? "";
    if (r.code === 0)
      expect(JSON.parse(r.stdout)).toMatchObject({ version: short, detected_by: "/proc/sys/kernel/osrelease" });
    else expect(r.stderr).toContain(`Linux Kernel has no release cycle for version ${short} (eol.cycle.unknown)`);
  });

  test("eol products lists them, piped one tab-separated row each, filtered by a text", async () => {
    const { env } = dirs();
    const r = await rta(["eol", "products", "database"], { env });
    expect(r.stdout).toBe("postgresql\tPostgreSQL\tdatabase\tpostgres\nredis\tRedis\tdatabase\t\n");
    const all = JSON.parse((await rta(["eol", "products", "--json"], { env })).stdout);
    expect(all.total).toBe(9);
  });

  test("eol watch takes config's [eol] watch and sorts it by days left, with what it could not say", async () => {
    const { env } = dirs(
      '[eol]\nwatch = ["postgresql@13.2", "nodejs@22.3.0", "redis@7.2", "redis@7.4", "nosuch@1", "ubuntu@20.04"]\n',
    );
    const r = await rta(["eol", "watch", "--json"], { env });
    expect(r.stderr).toBe("");
    const rows = JSON.parse(r.stdout).rows as Record<string, unknown>[];
    expect(rows.map((row) => [row.product, row.installed, row.security_end])).toEqual([
      ["ubuntu", "20.04", "2025-05-29"],
      ["postgresql", "13.2", "2025-11-13"],
      ["redis", "7.2", "2026-02-28"],
      ["nodejs", "22.3.0", "2027-04-30"],
      ["nosuch", "1", null],
      ["redis", "7.4", null],
    ]);
    expect(rows[1]?.note).toBe("update to 13.21");
    expect(rows[4]?.note).toBe('endoflife.date has no product "nosuch"');
    expect(rows[5]?.status).toBe("supported"); // 7.4 has no end date yet
    const none = await rta(["eol", "watch"], { env: dirs().env });
    expect(none.stderr).toContain("no product is watched");
    expect(none.stderr).toContain('[eol] watch = ["nodejs", "postgresql"]');
  });

  test("offline, it says so plainly, and an answer kept within its day is still given", async () => {
    const down = startStandIn({ "/api/v1/products/nodejs": standInNode() });
    const { env } = dirs("", down.url);
    expect((await rta(["eol", "check", "nodejs", "18.0.0"], { env })).code).toBe(0);
    await down.stop();
    const r = await rta(["eol", "check", "postgresql", "16"], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("endoflife.date could not be reached at http://127.0.0.1:");
    expect(r.stderr).toContain("(offsite.unreachable)\nrta: hint: rta may be offline");
    const kept = JSON.parse((await rta(["eol", "check", "nodejs", "18.0.0", "--json"], { env })).stdout).value;
    expect(kept).toMatchObject({ cycle: "18" });
    expect(kept.stale).toBeUndefined(); // within the day: kept, not stale
  });

  test("a redirect off the operator's base URL is refused", async () => {
    const moved = startStandIn({
      "/api/v1/products/nodejs": () =>
        new Response(null, { status: 301, headers: { location: `${standIn.url}/api/v1/products/nodejs` } }),
    });
    try {
      const r = await rta(["eol", "check", "nodejs", "20"], { env: dirs("", moved.url).env });
      expect(r.stderr).toContain("off the base URL the operator set (offsite.redirect)");
    } finally {
      await moved.stop();
    }
  });
});

function standInNode(): string {
  return require("node:fs").readFileSync(join(import.meta.dir, "..", "fixtures", "eol", "nodejs.json"), "utf8");
}

describe("eol over MCP", () => {
  test("the agent is told it asks endoflife.date, and is offered no api_url", async () => {
    const { data, config } = dirs();
    const s = await connect("modern", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    try {
      const tools = (await s.client.listTools()).tools.filter((t) => t.name.startsWith("eol_"));
      expect(tools.map((t) => t.name).sort()).toEqual(["eol_check", "eol_products", "eol_watch"]);
      for (const t of tools) {
        expect(t.description).toContain("It asks endoflife.date, a fixed service you cannot aim.");
        expect(Object.keys(t.inputSchema.properties ?? {})).not.toContain("api_url");
        expect(t.annotations?.openWorldHint).toBe(true);
      }
      const ok = resultJson(
        await s.client.callTool({ name: "eol_check", arguments: { product: "nodejs", version: "22.1.0" } }),
      );
      expect(ok.value).toMatchObject({ cycle: "22", latest: "22.16.0" });
      const aimed = await s.client.callTool({
        name: "eol_check",
        arguments: { product: "nodejs", version: "22", api_url: "http://127.0.0.2:9" },
      });
      expect(aimed.isError).toBe(true);
      expect(resultJson(aimed).code).toBe("core.mcp.badargs");
    } finally {
      await s.close();
    }
  });

  test("a never entry does not stop eol.*; a lock does", async () => {
    const { data, config, env } = dirs();
    writeFileSync(join(config, "policy.toml"), 'never = ["eol", "eol.check"]\n');
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    const call = (name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args });
    try {
      expect((await call("eol_check", { product: "python", version: "3.12.1" })).isError).toBeFalsy();
      expect((await call("eol_products", {})).isError).toBeFalsy();
      expect((await rta(["lock", "eol"], { env })).code).toBe(0);
      for (const [name, args] of [
        ["eol_check", { product: "python", version: "3.12.1" }],
        ["eol_products", {}],
        ["eol_watch", {}],
      ] as const)
        expect(resultJson(await call(name, args)).code).toBe("core.lock.locked");
    } finally {
      await s.close();
    }
  });
});
