import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { namesTaken } from "../../src/core/catalogue.ts";
import type { UpstreamConfig } from "../../src/core/configUpstreams.ts";
import { approvalOf, reachOf, updateApprovals } from "../../src/upstreams/approval.ts";
import { Upstreams } from "../../src/upstreams/load.ts";
import { tempDir } from "../support/fixtures.ts";
import { startFixture } from "./fixtureServer.ts";

const stdio = (name: string, command: string[]): UpstreamConfig => ({
  name,
  transport: { kind: "stdio", command, env: {} },
  tools: {},
});

function running(marker: string): boolean {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim() !== "";
  } catch {
    return false;
  }
}

describe("the upstreams a process offers", () => {
  test("a slow upstream is left out within the limit, its child stopped, and the others offered", async () => {
    const fixture = startFixture();
    const marker = `rta-test-slow-${crypto.randomUUID()}`;
    // a grandchild, in the child's process group: it goes with it
    const nap = `29.${Math.floor(Math.random() * 1e6)}`;
    const configs = {
      slow: stdio("slow", ["sh", "-c", `sleep ${nap}; : ${marker}`]),
      vendor: {
        name: "vendor",
        transport: { kind: "http", url: fixture.url, headers: { Authorization: `Bearer ${fixture.token}` } },
        tools: {},
      } as UpstreamConfig,
    };
    const data = tempDir();
    const ups = new Upstreams(configs, { dataDir: data, home: "/", maxMessage: 1 << 20, discoveryMs: 500 });
    try {
      await ups.discoverAll();
      const base = builtinCatalogue();
      // a new upstream is in quarantine: its tools withheld until a person approves it
      const held = ups.withUpstreams(base, namesTaken(base));
      expect(held.byTool("vendor_echo")).toBeUndefined();
      expect(held.withheld("vendor_echo")?.code).toBe("upstream.quarantined");
      expect(ups.listed().find((u) => u.name === "vendor")?.state).toBe("quarantined");
      const found = ups.foundOf("vendor");
      if (!found?.ok) throw new Error("vendor was not discovered");
      updateApprovals(data, (all) => {
        all.vendor = approvalOf(found.tools, found.exe, new Date(), reachOf(configs.vendor));
      });
      const catalogue = ups.withUpstreams(base, namesTaken(base));
      expect(catalogue.byTool("vendor_echo")?.safety).toBe("read");
      expect(catalogue.byTool("vendor_echo")?.upstream?.pin).toMatch(/^[0-9a-f]{64}$/);
      const slow = ups.listed().find((u) => u.name === "slow");
      expect(slow).toMatchObject({ state: "failed", reason: "it did not list its tools within 0.5 s" });
      for (let i = 0; i < 100 && running(marker); i++) await Bun.sleep(20);
      expect(running(marker)).toBe(false);
      for (let i = 0; i < 100 && running(`sleep ${nap}`); i++) await Bun.sleep(20);
      expect(running(`sleep ${nap}`)).toBe(false);

      // a person's command knows the tools from what was kept, and the failure with its reason
      const later = new Upstreams(configs, { dataDir: data, home: "/", maxMessage: 1 << 20 });
      later.fromKept();
      later.withUpstreams(base, namesTaken(base));
      expect(later.listed().map((u) => [u.name, u.state])).toEqual([
        ["slow", "failed"],
        ["vendor", "known"],
      ]);
      // an upstream whose config changed is not known from what an older config found
      const moved = {
        ...configs,
        vendor: { ...configs.vendor, transport: { ...configs.vendor.transport, url: `${fixture.url}2` } },
      } as typeof configs;
      const changed = new Upstreams(moved, { dataDir: data, home: "/", maxMessage: 1 << 20 });
      changed.fromKept();
      changed.withUpstreams(base, namesTaken(base));
      expect(changed.listed().find((u) => u.name === "vendor")?.state).toBe("unknown");
    } finally {
      await ups.close();
      fixture.stop();
    }
  }, 20_000);
});
