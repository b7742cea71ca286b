import { expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { parseMounts } from "../../src/capabilities/disk/usage.ts";
import { person } from "../../src/core/call.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { testDeps } from "../support/fixtures.ts";

test("pseudo file systems are left out, escapes decoded, and a mount point mounted over is kept once", () => {
  const mounts = parseMounts(
    [
      "proc /proc proc rw 0 0",
      "/dev/vda / ext4 rw 0 0",
      "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0",
      "/dev/vdb /mnt/my\\040disk xfs rw 0 0",
      "tmpfs /tmp tmpfs rw 0 0",
      "/dev/vdc /tmp ext4 rw 0 0",
      "",
    ].join("\n"),
  );
  expect(mounts).toEqual([
    { device: "/dev/vda", mount: "/", type: "ext4" },
    { device: "/dev/vdb", mount: "/mnt/my disk", type: "xfs" },
    { device: "/dev/vdc", mount: "/tmp", type: "ext4" },
  ]);
});

test("on this machine the root file system is listed with consistent figures", async () => {
  const out = await runCall({ capability: "disk.usage", args: {}, origin: person }, builtinCatalogue(), testDeps());
  if (!out.ok || out.value.type !== "table") throw new Error("expected a table");
  const root = out.value.rows.find((r) => r[0] === "/");
  expect(root).toBeDefined();
  const [, , , size, used, available, percent] = root as number[];
  expect(size).toBeGreaterThan(0);
  expect((used as number) + (available as number)).toBeLessThanOrEqual(size as number);
  expect(percent).toBeGreaterThanOrEqual(0);
  expect(percent).toBeLessThanOrEqual(100);
  expect(out.value.total).toBe(out.value.rows.length);
});
