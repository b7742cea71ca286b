import { expect, test } from "bun:test";
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
