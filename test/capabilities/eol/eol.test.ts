/** The eol reads' own work, in process: versions found here, cycles matched, and where a cycle stands on a fixed day. */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Cycle, cycleOf, daysUntil, older } from "../../../src/capabilities/eol/api.ts";
import { eolCheck, standing } from "../../../src/capabilities/eol/check.ts";
import { detect } from "../../../src/capabilities/eol/detect.ts";
import type { Spawn } from "../../../src/core/access.ts";
import { offsiteFor } from "../../../src/gate/net/offsite.ts";
import { startEolStandIn } from "../../support/eolStandIn.ts";
import { tempDir } from "../../support/fixtures.ts";

const standIn = startEolStandIn();
afterAll(() => standIn.stop());

/** A spawn that answers each command line from `outputs`, and says a tool not listed is not installed. */
function fakeSpawn(
  outputs: Record<string, { stdout?: string; stderr?: string; code?: number }>,
  ran: string[] = [],
): Spawn {
  return async (argv) => {
    ran.push(argv.join(" "));
    const o = outputs[argv.join(" ")];
    return o ? { code: o.code ?? 0, stdout: o.stdout ?? "", stderr: o.stderr ?? "" } : undefined;
  };
}

function hostWith(osRelease: string, kernel?: string) {
  const dir = tempDir();
  writeFileSync(join(dir, "os-release"), osRelease);
  const proc = tempDir();
  if (kernel !== undefined) {
    require("node:fs").mkdirSync(join(proc, "sys", "kernel"), { recursive: true });
    writeFileSync(join(proc, "sys", "kernel", "osrelease"), kernel);
  }
  return { procRoot: proc, passwdFile: "/nonexistent", osReleaseFile: join(dir, "os-release") };
}

describe("the version installed here", () => {
  const host = hostWith('PRETTY_NAME="Ubuntu 22.04.4 LTS"\nID=ubuntu\nVERSION_ID="22.04"\n', "6.1.0-18-amd64\n");
  const spawn = fakeSpawn({
    "node --version": { stdout: "v20.11.1\n" },
    "python3 --version": { code: 127 },
    "python --version": { stderr: "Python 2.7.18\n" },
    "psql --version": { stdout: "psql (PostgreSQL) 16.2 (Ubuntu 16.2-1.pgdg22.04+1)\n" },
    "nginx -v": { stderr: "nginx version: nginx/1.24.0 (Ubuntu)\n" },
    "bun --version": { stdout: "1.1.3\n" },
  });
  const ctx = { spawn, host };

  test("each detectable product is asked of its tool or read from the host's files", async () => {
    expect(await detect("node", ctx)).toEqual({ version: "20.11.1", by: "node --version" });
    expect(await detect("nodejs", ctx)).toEqual({ version: "20.11.1", by: "node --version" });
    expect(await detect("python", ctx)).toEqual({ version: "2.7.18", by: "python --version" });
    expect(await detect("postgresql", ctx)).toEqual({ version: "16.2", by: "psql --version" });
    expect(await detect("nginx", ctx)).toEqual({ version: "1.24.0", by: "nginx -v" });
    expect(await detect("bun", ctx)).toEqual({ version: "1.1.3", by: "bun --version" });
    expect(await detect("ubuntu", ctx)).toEqual({ version: "22.04", by: "/etc/os-release" });
    expect(await detect("kernel", ctx)).toEqual({ version: "6.1.0", by: "/proc/sys/kernel/osrelease" });
  });

  test("another distribution, a missing tool and a product rta cannot detect are told apart", async () => {
    expect(await detect("debian", ctx)).toBe("absent");
    expect(await detect("debian", { spawn, host: hostWith("ID=debian\nVERSION_ID=12\n") })).toEqual({
      version: "12",
      by: "/etc/os-release",
    });
    expect(await detect("kernel", { spawn, host: hostWith("") })).toBe("absent");
    expect(await detect("node", { spawn: fakeSpawn({}), host })).toBe("absent");
    expect(await detect("redis", ctx)).toBe("unknown");
  });

  test("a version is matched to its cycle by its leading parts, the longest first", () => {
    const cycles = ["6.12", "6.1", "5.15", "22.04", "20", "3.1", "3.11"].map((name) => ({ name }) as Cycle);
    expect(cycleOf(cycles, "6.1.0-18-amd64")?.name).toBe("6.1");
    expect(cycleOf(cycles, "6.12.3")?.name).toBe("6.12");
    expect(cycleOf(cycles, "v20.11.1")?.name).toBe("20");
    expect(cycleOf(cycles, "3.11.2")?.name).toBe("3.11");
    expect(cycleOf(cycles, "22.04")?.name).toBe("22.04");
    expect(cycleOf(cycles, "200.1")).toBeUndefined();
    expect(cycleOf(cycles, "6")).toBeUndefined();
  });

  test("older compares parts as numbers", () => {
    expect(older("20.9.0", "20.19.2")).toBe(true);
    expect(older("20.19.2", "20.19.2")).toBe(false);
    expect(older("13.21", "13.3")).toBe(false);
    expect(daysUntil("2026-04-30", Date.parse("2026-04-29T23:00:00Z"))).toBe(1);
    expect(daysUntil("2026-04-30", Date.parse("2026-04-30T23:00:00Z"))).toBe(0);
    expect(daysUntil("2026-04-30", Date.parse("2026-04-28T00:00:00Z"))).toBe(2);
    expect(daysUntil(null, 0)).toBeNull();
  });
});

describe("where a cycle stands, on a fixed day", () => {
  const at = (day: string) => {
    const clock = { now: () => Date.parse(`${day}T12:00:00Z`) };
    const offsite = offsiteFor(
      eolCheck as never,
      { api_url: standIn.url },
      {
        dataDir: tempDir(),
        clock,
        signal: new AbortController().signal,
      },
    );
    return { offsite, clock };
  };
  const fresh = () => ({ ageMs: 0, stale: false });

  test("supported, security fixes only, end of life, with the days left to the security end", async () => {
    expect(await standing(at("2024-06-01"), standIn.url, "node", "20.1.0", fresh())).toMatchObject({
      status: "supported",
      days_left: 698,
      update: "20.19.2",
    });
    expect(await standing(at("2025-06-01"), standIn.url, "node", "20.19.2", fresh())).toMatchObject({
      status: "security fixes only",
      days_left: 333,
      update: null,
    });
    expect(await standing(at("2026-05-01"), standIn.url, "nodejs", "20", fresh())).toMatchObject({
      status: "end of life",
      days_left: -1,
    });
  });
});
