import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { person } from "../../src/core/call.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { hostAt, testDeps, tree } from "../support/fixtures.ts";

test("sys.info reads OS name, uptime, load and memory from the host's files", async () => {
  const root = tree({
    "etc/os-release": 'NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
    "proc/uptime": "93784.52 1000.00\n",
    "proc/loadavg": "0.50 0.25 0.10 1/234 5678\n",
    "proc/meminfo": "MemTotal:        2048 kB\nMemFree:  10 kB\nMemAvailable:    1024 kB\n",
  });
  const out = await runCall(
    { capability: "sys.info", args: {}, origin: person },
    builtinCatalogue(),
    testDeps({ host: hostAt(root) }),
  );
  if (!out.ok || out.value.type !== "object") throw new Error("expected an object");
  expect(out.value.value).toMatchObject({
    os: "Debian GNU/Linux 12 (bookworm)",
    uptime_s: 93784,
    uptime: "up 1 d",
    load: [0.5, 0.25, 0.1],
    memory: { total: 2048 * 1024, available: 1024 * 1024, used: 1024 * 1024 },
  });
  const cpus = out.value.value.cpus as { count: number };
  expect(cpus.count).toBeGreaterThan(0);
});

test("sys.info on this machine answers every field", async () => {
  const out = await runCall({ capability: "sys.info", args: {}, origin: person }, builtinCatalogue(), testDeps());
  if (!out.ok || out.value.type !== "object") throw new Error("expected an object");
  for (const key of ["hostname", "os", "kernel", "arch", "uptime_s", "load", "memory", "cpus"]) {
    expect(out.value.value[key]).toBeDefined();
  }
});

test("sys.info's uptime asked of the kernel's clock is what /proc/uptime says, and its load what /proc/loadavg says", async () => {
  if (process.platform !== "linux") return;
  const figures = (file: string, n: number) => readFileSync(file, "utf8").split(/\s+/, n).map(Number);
  // the kernel moves its load averages every 5 seconds: asked again when one moved between the two looks
  for (let attempt = 0; ; attempt++) {
    const load = figures("/proc/loadavg", 3);
    const [before] = figures("/proc/uptime", 1);
    const out = await runCall({ capability: "sys.info", args: {}, origin: person }, builtinCatalogue(), testDeps());
    const [after] = figures("/proc/uptime", 1);
    if (!out.ok || out.value.type !== "object") throw new Error("expected an object");
    const v = out.value.value as { uptime_s: number; load: number[] };
    expect(v.uptime_s).toBeGreaterThanOrEqual(Math.floor(before as number));
    expect(v.uptime_s).toBeLessThanOrEqual(Math.floor(after as number));
    if (attempt < 3 && JSON.stringify(load) !== JSON.stringify(figures("/proc/loadavg", 3))) continue;
    expect(v.load).toEqual(load);
    break;
  }
});

test("sys.info reads the uptime file where the proc root's is not the kernel's (a container's lxcfs)", async () => {
  // the fixture's file is on an ordinary file system, as lxcfs's is on its own: it is read, not the kernel's clock
  const root = tree({ "proc/uptime": "5.00 1.00\n", "proc/loadavg": "9.99 8.88 7.77 1/2 3\n", "proc/meminfo": "" });
  const out = await runCall(
    { capability: "sys.info", args: {}, origin: person },
    builtinCatalogue(),
    testDeps({ host: hostAt(root) }),
  );
  if (!out.ok || out.value.type !== "object") throw new Error("expected an object");
  expect(out.value.value).toMatchObject({ uptime_s: 5, load: [9.99, 8.88, 7.77] });
});
