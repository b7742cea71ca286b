/**
 * End to end: the path completion of a read's template is a listing of a
 * directory, held as a call of that read is: a lock stops it (a locked agent
 * is offered no name, as fs_list is refused), and it spends from the read's
 * rate bucket, so completion is no way round a limit on listing. On both eras.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

const READ = "rta://fs/read/{path}{?from_line,length,lines,offset}";

/** A root with two names in it, a data dir and a config dir whose config.toml says `config`. */
function place(config = ""): { root: string; env: { RTA_DATA_DIR: string; RTA_CONFIG_DIR: string } } {
  const root = tempDir();
  writeFileSync(join(root, "payroll-2026.csv"), "x\n");
  writeFileSync(join(root, "payroll-2027.csv"), "y\n");
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  writeFileSync(join(env.RTA_CONFIG_DIR, "config.toml"), config);
  return { root, env };
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`completion of a path is held as a listing, ${era} era`, () => {
    test("a locked agent is offered no name, whole or for the read alone, until the lock is lifted", async () => {
      const { root, env } = place();
      const s = await connect(era, ["--agent", "claude", "--root", root], {
        dataDir: env.RTA_DATA_DIR,
        env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR },
      });
      const names = async () =>
        (
          await s.client.complete({
            ref: { type: "ref/resource", uri: READ },
            argument: { name: "path", value: "pay" },
          })
        ).completion;
      try {
        expect((await names()).values).toEqual(["payroll-2026.csv", "payroll-2027.csv"]);
        for (const locked of [["lock", "--agent", "claude"], ["lock", "--agent", "claude", "fs.read"], ["lock"]]) {
          const id = (await rta(locked, { env })).stdout.trim();
          expect(id).not.toBe("");
          try {
            expect(await names()).toEqual({ values: [], total: 0, hasMore: false });
          } finally {
            expect((await rta(["lock", "lift", id], { env })).code).toBe(0);
          }
        }
        // an enum is the schema's, not the machine's: it completes under a lock too
        expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
        const sort = await s.client.complete({
          ref: { type: "ref/resource", uri: "rta://proc/list{?limit,sort}" },
          argument: { name: "sort", value: "" },
        });
        expect(sort.completion.values.length).toBeGreaterThan(1);
        expect((await rta(["lock", "lift", "--agent", "claude"], { env })).code).toBe(0);
        expect((await names()).values).toEqual(["payroll-2026.csv", "payroll-2027.csv"]);
      } finally {
        await s.close();
      }
    });

    test("a completion spends from the read's bucket: past the limit it offers nothing, and the call is refused too", async () => {
      const { root, env } = place('[limits]\n[limits.capabilities]\n"fs.read" = 2\n');
      const s = await connect(era, ["--agent", "claude", "--root", root], {
        dataDir: env.RTA_DATA_DIR,
        env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR },
      });
      try {
        const ask = () =>
          s.client.complete({ ref: { type: "ref/resource", uri: READ }, argument: { name: "path", value: "pay" } });
        expect((await ask()).completion.values).toHaveLength(2);
        expect((await ask()).completion.values).toHaveLength(2);
        expect((await ask()).completion).toEqual({ values: [], total: 0, hasMore: false });
        const call = await s.client.callTool({ name: "fs_read", arguments: { path: "payroll-2026.csv" } });
        expect((resultJson(call) as { code: string }).code).toBe("core.rate.limited");
      } finally {
        await s.close();
      }
      const log = JSON.parse((await rta(["agent", "log", "--json"], { env })).stdout) as {
        capability: string;
        outcome: string;
      }[];
      expect(log.filter((l) => l.outcome === "core.rate.limited").map((l) => l.capability)).toEqual([
        "fs_read",
        "fs_read",
      ]);
    });
  });
}
