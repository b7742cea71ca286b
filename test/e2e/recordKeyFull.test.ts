/**
 * End to end: a server started on a full disk before the record has a key.
 * Each call tries to make the key, and each try left its empty temporary
 * file in the data dir: an agent's retries made as many files as it sent calls.
 */
import { expect, test } from "bun:test";
import { closeSync, openSync, readdirSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { GateStore } from "../../src/gate/gateStore.ts";
import { onSmallDisk } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";

const root = process.getuid?.() === 0;

/** Fills the file system `dir` is on. */
function fill(dir: string): void {
  const fd = openSync(join(dir, "filler"), "w");
  try {
    for (;;) writeSync(fd, Buffer.alloc(64 * 1024, 0x61));
  } catch {
    // full
  } finally {
    closeSync(fd);
  }
  try {
    for (let i = 0; ; i++) writeFileSync(join(dir, `crumb${i}`), "x".repeat(512));
  } catch {
    // full
  }
}

test.skipIf(!root)(
  "calls on a full disk with no key yet are refused and leave no temporary files",
  async () => {
    await onSmallDisk(async (data) => {
      // the grant store made while there was room and held open, as a server sharing it would: its files stay
      const store = join(data, "gate.db");
      new GateStore(store).close();
      const holder = Bun.spawn(
        [
          process.execPath,
          "-e",
          `const db = new (require("bun:sqlite").Database)(${JSON.stringify(store)}); db.query("SELECT count(*) FROM grants").get(); setInterval(() => {}, 1000)`,
        ],
        { stdout: "ignore" },
      );
      for (let i = 0; i < 100 && !readdirSync(data).includes("gate.db-shm"); i++) await Bun.sleep(50);
      fill(data);
      const s = await connect("legacy", ["--agent", "claude"], { dataDir: data });
      try {
        for (let i = 0; i < 10; i++) {
          const answer = resultJson(await s.client.callTool({ name: "sys_info", arguments: {} }));
          expect(answer.code).toBe("core.record.unavailable");
        }
      } finally {
        await s.close();
        holder.kill();
      }
      expect(readdirSync(data).filter((f) => f.startsWith("record.key"))).toEqual([]);
    });
  },
  60_000,
);
