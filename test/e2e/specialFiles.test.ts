/**
 * End to end: a read that only looks (fs.stat) at a FIFO or a device. The
 * gate opened what it confirmed for reading, whatever it was; opening a
 * device for reading has the device's own effects (a watchdog armed that
 * reboots the machine once closed, a serial line's DTR raised, a tape
 * rewound), and opening a FIFO lets its writer go. A free read may not do
 * any of that: what is not a file or a directory is opened as a name only.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";

/**
 * Where the kernel has a process wait: a writer opening a FIFO no one reads waits for its partner. Once a
 * reader's open lets it go it waits there no more, whether it then ends with a code or by SIGPIPE (a reader
 * gone by the time it writes, which leaves no exit code), so this is asked rather than how it ended.
 */
const waitsIn = (pid: number) => readFileSync(`/proc/${pid}/wchan`, "utf8");

describe("a FIFO a writer waits on", () => {
  test("is described by fs.stat and refused by fs.read and fs.hash without being opened: the writer still waits", async () => {
    const root = realpathSync(tempDir());
    const fifo = join(root, "pipe");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    // blocks in open() until someone opens the FIFO for reading
    const writer = Bun.spawn(["sh", "-c", `echo hi > ${fifo}`], { stdio: ["ignore", "ignore", "ignore"] });
    while (waitsIn(writer.pid) !== "wait_for_partner") await Bun.sleep(5);
    const s = await connect("modern", ["--root", root]);
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await s.client.callTool({ name, arguments: args }));
    try {
      expect(await call("fs_stat", { path: "pipe" })).toMatchObject({ type: "object", value: { type: "other" } });
      expect((await call("fs_read", { path: "pipe" })).code).toBe("fs.notfile");
      expect((await call("fs_hash", { path: "pipe" })).code).toBe("fs.notfile");
      expect((await call("log_tail", { path: "pipe" })).code).toBe("fs.notfile");
      expect((await call("fs_grep", { path: "pipe", pattern: "hi" })).code).toBe("fs.notfile");
      expect(waitsIn(writer.pid)).toBe("wait_for_partner");
    } finally {
      writer.kill();
      await s.close();
    }
  }, 30_000);
});
