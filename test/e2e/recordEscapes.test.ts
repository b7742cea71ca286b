/**
 * End to end: what an agent chose (its client name, which is its name when
 * no --agent is given; its tool and argument names) reaches a person's
 * terminal escaped, in `rta agent log`, `agent overview` and the server's
 * --verbose notes: no screen cleared, no title set, no line faked, no text
 * reversed.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { connect } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

/** What a terminal acts on: C0 but the newline that ends a line, DEL, C1, the separators, the bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ACTS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FAKE = "\r\n2026-11-30T00:00:00Z  00000000  claude  fs_rm  ok  1 ms";

test("an agent's escapes reach the operator's terminal written out, never acted on", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const s = await connect("legacy", ["--verbose"], {
    dataDir: data,
    clientName: "evil\u001b[2J\u001b]0;owned\u0007\u202eedualc\u009b1m",
    env: { RTA_CONFIG_DIR: config },
  });
  try {
    await s.client.callTool({ name: "sys_info", arguments: {} });
    await s.client.callTool({ name: `sys_info\u001b[2J${FAKE}`, arguments: {} }).catch(() => undefined);
    await s.client.callTool({ name: "proc_list", arguments: { [`limit\u001b]0;x\u0007${FAKE}`]: 1 } });
  } finally {
    await s.close();
  }
  // the server's own notes on its stderr
  const notes = s
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("rta: evil"));
  expect(notes).toHaveLength(3);
  for (const note of notes) expect(note).not.toMatch(ACTS);
  // the agent's name is made from its client's name with what a name cannot hold left out; the client keeps it
  expect(notes[0]).toContain("rta: evil-2J-0-owned-edualc-1m sys_info ok");

  const log = await onTerminal(["agent", "log"], env);
  expect(log.code).toBe(0);
  const rows = log.out.split("\n").filter(Boolean);
  expect(rows).toHaveLength(3); // three calls: none of them made a fourth line
  for (const row of rows) expect(row).not.toMatch(ACTS);
  expect(rows[1]).toContain("sys_info\\x1b[2J\\r\\n2026-11-30T00:00:00Z");

  const overview = await onTerminal(["agent", "overview", "--detail"], env);
  expect(overview.out).not.toMatch(ACTS);
  expect(overview.out).toContain("evil\\x1b[2J");

  // piped, a call is one line of eight tab-separated fields: a tab or line break an agent sent is written out
  const plain = await rta(["agent", "log"], { env });
  const plainRows = plain.stdout.split("\n").filter(Boolean);
  expect(plainRows).toHaveLength(3);
  for (const row of plainRows) {
    expect(row.split("\t")).toHaveLength(8);
    expect(row.replaceAll("\t", " ")).not.toMatch(ACTS);
  }
  expect(plainRows[1]?.split("\t")[3]).toStartWith("sys_info\\x1b[2J\\r\\n2026-11-30T00:00:00Z");

  // with --json, the same values, with nothing raw a terminal acts on either
  const piped = await rta(["agent", "log", "--json"], { env });
  expect(piped.stdout.replace(/\n$/, "")).not.toMatch(ACTS);
  const lines = JSON.parse(piped.stdout) as { agent: string; capability: string; args: string[] }[];
  expect(lines[1]?.capability).toBe(`sys_info\u001b[2J${FAKE}`);
  expect(lines[2]?.args).toEqual([`limit\u001b]0;x\u0007${FAKE}`]);
});

test("a grant's record, pasted from the command an agent's refusal suggested, is confirmed escaped", async () => {
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  const record = "notes/\u001b]0;owned\u0007\u001b[2J\u202eevil";
  const r = await onTerminal(["grant", "allow", "fs.write", record, "--agent", "claude", "--ttl", "5m"], env);
  expect(r.code).toBe(0);
  expect(r.out.replace(/\n$/, "")).not.toMatch(ACTS);
  // a path narrowing is called a path: "the record" is the agent log
  expect(r.out).toContain("narrowed to: path notes/\\x1b]0;owned\\x07\\x1b[2J\\u202eevil");
});

test("an agent cannot pass as another through invisible characters: format characters are written out too", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  // zero-width space, soft hyphen, word joiner, a tag character: each shown as nothing, so this was "claude"
  const s = await connect("legacy", [], {
    dataDir: data,
    clientName: "cla\u00adu\u2060de\u200b\u{e0041}",
    env: { RTA_CONFIG_DIR: config },
  });
  try {
    await s.client.callTool({ name: "sys_info", arguments: {} });
  } finally {
    await s.close();
  }
  // the agent's name is made from the client's with what a name cannot hold left out: never "claude"
  const log = await onTerminal(["agent", "log"], env);
  expect(log.out).toContain("cla-u-de-");
  expect(log.out).not.toMatch(/\bclaude\b/);
  const overview = await onTerminal(["agent", "overview", "--detail"], env);
  expect(overview.out).toContain("cla\\xadu\\u2060de\\u200b\\u{e0041}");
  // with --json, the client's name as it was sent, with the invisible characters written as JSON escapes
  const piped = await rta(["agent", "log", "--json"], { env });
  expect(piped.stdout).toContain("cla\\u00adu\\u2060de\\u200b\\udb40\\udc41");
  const line = (JSON.parse(piped.stdout) as { agent: string; client: string }[])[0];
  expect(line?.agent).toBe("cla-u-de-");
  expect(line?.client).toStartWith("cla\u00adu\u2060de\u200b\u{e0041}");
});
