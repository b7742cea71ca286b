/**
 * End to end: a record larger than the largest string the runtime makes is
 * still read, verified and summed up. Every agent call is a line, so an agent
 * can grow the record as far as the disk allows (about 14 MB/s from one stdio
 * client sending probes); read whole, a record past 2 GiB answered ENOMEM to
 * `rta agent log --verify`, `agent log` and `agent overview`, and one of 1 GiB
 * took 5 GB of memory to verify.
 */
import { expect, test } from "bun:test";
import { appendFileSync, closeSync, ftruncateSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** Past the largest string: 2 GiB and a little. */
const LARGE = 2 ** 31 + 1024 * 1024;

test("a record past 2 GiB is verified, listed and summed up a line at a time", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const s = await connect("legacy", ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
  await s.client.callTool({ name: "sys_info", arguments: {} });
  await s.close();
  // What a long-running agent's lines would have made it: here a hole of zeros (no disk is used), then one
  // line more, so there is something past the hole to find.
  const file = join(data, "agent-log.jsonl");
  const fd = openSync(file, "r+");
  ftruncateSync(fd, LARGE);
  closeSync(fd);
  appendFileSync(file, '\n{"not":"a record line"}\n');
  expect(statSync(file).size).toBeGreaterThan(2 ** 31);

  const verified = await rta(["agent", "log", "--verify", "--json"], { env });
  expect(verified.stderr).toBe("");
  const verdict = JSON.parse(verified.stdout) as { lines: number; problems: { kind: string; line: number }[] };
  expect(verdict.lines).toBe(3); // start, the free read's one line, end
  // the hole is one line far too long to be a record line, and the last line is none either
  expect(verdict.problems.map((p) => [p.kind, p.line])).toEqual([
    ["forged", 4],
    ["forged", 5],
  ]);

  const listed = await rta(["agent", "log", "--json"], { env });
  expect(listed.stderr).toBe("");
  expect((JSON.parse(listed.stdout) as { capability: string }[]).map((l) => l.capability)).toEqual(["sys_info"]);

  const summed = await rta(["agent", "overview", "--json"], { env });
  expect(summed.stderr).toBe("");
  expect(JSON.parse(summed.stdout)).toMatchObject({ sessions: 1, calls: 1, agents: ["claude"] });
}, 120_000);
