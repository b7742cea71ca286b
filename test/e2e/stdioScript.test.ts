/**
 * End to end: a script that pipes its calls to `rta mcp serve` and closes its end (`cat calls.jsonl | rta mcp serve`)
 * is answered every call that ran, whether the record is the data dir's file or a shared PostgreSQL store
 * (test/support/pg.ts). With a store each line waits for its batch's commit, and the session closed at the client's
 * end of input before its answers were written: the calls were on the record as answered, and the script was told
 * nothing.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { pgServer } from "../support/pg.ts";
import { rta } from "../support/rta.ts";

const pg = await pgServer();

/** The lines a script sends: the handshake, then `calls` tools/calls with ids from 2. */
function script(calls: { name: string; arguments: Record<string, unknown> }[]): string {
  const lines: unknown[] = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "script", version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...calls.map((params, i) => ({ jsonrpc: "2.0", id: i + 2, method: "tools/call", params })),
  ];
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

async function piped(store: string[]): Promise<{ ids: unknown[]; errors: unknown[]; log: string }> {
  const root = tempDir();
  writeFileSync(join(root, "notes.txt"), "one\ntwo\n");
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  const calls = [
    ...Array.from({ length: 4 }, () => ({ name: "sys_info", arguments: {} })),
    { name: "fs_read", arguments: { path: join(root, "notes.txt") } },
    { name: "fs_read", arguments: { path: join(root, "absent.txt") } },
  ];
  const ran = await rta(["mcp", "serve", "--root", root, ...store], { stdin: script(calls), env });
  expect(ran.code).toBe(0);
  const answers = ran.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: unknown; result?: { isError?: boolean } });
  const log = await rta(["agent", "log", "--json", ...store], { env });
  return {
    ids: answers.map((a) => a.id).sort(),
    errors: answers.filter((a) => a.result?.isError).map((a) => a.id),
    log: log.stdout,
  };
}

describe("a script that pipes its calls and closes its end", () => {
  test("with the data dir's record: every call is answered, and on the record", async () => {
    const { ids, errors, log } = await piped([]);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(errors).toEqual([7]);
    expect((JSON.parse(log) as unknown[]).length).toBe(6);
  });

  test.skipIf(pg === null)(
    "with a shared store: every call is answered as with the file, and on the store's record",
    async () => {
      const store = await (pg?.freshDb() as Promise<string>);
      const { ids, errors, log } = await piped(["--store", store]);
      expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(errors).toEqual([7]);
      expect((JSON.parse(log) as unknown[]).length).toBe(6);
    },
  );
});
