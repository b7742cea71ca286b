/**
 * A stdio server whose stdin or stdout is a regular file, not a pipe: the
 * requests a file holds are read and answered as a pipe's are, the end of the
 * file ends the session with its end line, and answers land in a file whole.
 */
import { expect, test } from "bun:test";
import { openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RTA } from "../support/rta.ts";

const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const opening = [
  line({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "files", version: "1" } },
  }),
  line({ jsonrpc: "2.0", method: "notifications/initialized" }),
  line({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
].join("");

test("requests read from a file are answered into a file, and the file's end ends the session", async () => {
  const dir = tempDir();
  const data = tempDir();
  const requests = join(dir, "requests.jsonl");
  const answers = join(dir, "answers.jsonl");
  writeFileSync(requests, opening);
  const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "files"], {
    stdin: openSync(requests, "r"),
    stdout: openSync(answers, "w"),
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
  });
  expect(await proc.exited).toBe(0);
  const got = readFileSync(answers, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { id: number; result?: { tools?: unknown[] } });
  expect(got.map((m) => m.id)).toEqual([1, 2]);
  expect(got[1]?.result?.tools?.length).toBeGreaterThan(0);
  const record = readFileSync(join(data, "agent-log.jsonl"), "utf8").trim().split("\n");
  expect(record.at(-1)).toContain('"kind":"end"');
  expect(await new Response(proc.stderr).text()).not.toContain("rta: error");
});

test("an empty stdin ends the session at once, with its start and end lines", async () => {
  const dir = tempDir();
  const data = tempDir();
  const empty = join(dir, "empty");
  writeFileSync(empty, "");
  const proc = Bun.spawn([RTA, "mcp", "serve"], {
    stdin: openSync(empty, "r"),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
  });
  expect(await proc.exited).toBe(0);
  expect(await new Response(proc.stdout).text()).toBe("");
  const kinds = readFileSync(join(data, "agent-log.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { kind?: string }).kind);
  expect(kinds).toEqual(["start", "end"]);
});

test("a stdin that cannot be read (a directory) ends the session with its end line, and no stack on stderr", async () => {
  const data = tempDir();
  const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "files"], {
    stdin: openSync(tempDir(), "r"),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
  });
  const code = await proc.exited;
  const stderr = await new Response(proc.stderr).text();
  expect(stderr).not.toContain("EISDIR");
  expect(stderr).not.toContain("$bunfs");
  expect(code).toBe(0);
  expect(await new Response(proc.stdout).text()).toBe("");
  const kinds = readFileSync(join(data, "agent-log.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { kind?: string }).kind);
  expect(kinds).toEqual(["start", "end"]);
});
