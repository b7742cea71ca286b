import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { readProcesses } from "../../src/capabilities/proc/list.ts";
import { person } from "../../src/core/call.ts";
import { realHost } from "../../src/core/deps.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { hostAt, testDeps, tree } from "../support/fixtures.ts";

// Three processes: uptime 1000 s, 8 GiB of memory. Times in ticks of 1/100 s.
function stat(pid: number, comm: string, ticks: number, startTicks: number): string {
  const rest = [
    "S",
    "1",
    ...Array(9).fill("0"),
    String(ticks),
    "0",
    ...Array(6).fill("0"),
    String(startTicks),
    "0",
    "0",
  ];
  return `${pid} (${comm}) ${rest.join(" ")}\n`;
}
const fixture = () =>
  tree({
    "proc/uptime": "1000.00 3000.00\n",
    "proc/meminfo": "MemTotal:        8388608 kB\nMemAvailable:    4194304 kB\n",
    "proc/1/stat": stat(1, "init", 1000, 0),
    "proc/1/status": "Name:\tinit\nUid:\t0\t0\t0\t0\nVmRSS:\t    8192 kB\n",
    "proc/1/cmdline": "/sbin/init\0splash\0",
    "proc/42/stat": stat(42, "we(ird) name", 45000, 10000),
    "proc/42/status": "Name:\tweird\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t 4194304 kB\n",
    "proc/42/cmdline": "",
    "proc/7/stat": stat(7, "busy", 90000, 50000),
    "proc/7/status": "Name:\tbusy\nUid:\t4242\t4242\t4242\t4242\nVmRSS:\t 1048576 kB\n",
    "proc/7/cmdline": "node\0server.js\0",
    "proc/self/stat": "not a pid dir, skipped by name",
    "etc/passwd": "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n",
  });

describe("proc.list", () => {
  test("reads pid, user, cpu over the process's life, memory share and command", () => {
    const rows = readProcesses(hostAt(fixture()));
    const byPid = new Map(rows.map((r) => [r.pid, r]));
    expect(rows).toHaveLength(3);
    // init: 10 s of CPU over 1000 s alive; 8 MiB of 8 GiB
    expect(byPid.get(1)).toEqual({ pid: 1, user: "root", cpu: 1, mem: 0.1, command: "/sbin/init splash" });
    // a name with spaces and parentheses, a kernel thread with no cmdline: 450 s over 900 s
    expect(byPid.get(42)).toEqual({ pid: 42, user: "alice", cpu: 50, mem: 50, command: "[we(ird) name]" });
    // a uid the user database lacks is shown as a number: 900 s over 500 s is 180% (two CPUs)
    expect(byPid.get(7)).toEqual({ pid: 7, user: "4242", cpu: 180, mem: 12.5, command: "node server.js" });
  });

  test("sorts, limits, and keeps the true total", async () => {
    const deps = testDeps({ host: hostAt(fixture()) });
    const run = async (args: Record<string, unknown>) => {
      const out = await runCall({ capability: "proc.list", args, origin: person }, builtinCatalogue(), deps);
      if (!out.ok || out.value.type !== "table") throw new Error("expected a table");
      return out.value;
    };
    const byCpu = await run({});
    expect(byCpu.columns).toEqual(["pid", "user", "cpu", "mem", "command"]);
    expect(byCpu.rows.map((r) => r[0])).toEqual([7, 42, 1]);
    expect((await run({ sort: "mem" })).rows.map((r) => r[0])).toEqual([42, 7, 1]);
    const limited = await run({ sort: "pid", limit: 2 });
    expect(limited.rows.map((r) => r[0])).toEqual([1, 7]);
    expect(limited.total).toBe(3);
  });

  test("a machine without a proc file system is told so", async () => {
    const deps = testDeps({ host: hostAt(tree({ "etc/passwd": "" })) });
    const out = await runCall({ capability: "proc.list", args: {}, origin: person }, builtinCatalogue(), deps);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.code).toBe("core.platform.unsupported");
  });

  test("on this machine it finds the test runner itself", () => {
    const me = readProcesses(realHost).find((r) => r.pid === process.pid);
    expect(me?.command).toContain("bun");
  });
});
