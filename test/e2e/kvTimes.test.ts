/**
 * Times in kv list, kv overview and kv set are data, as gh gives them: ISO
 * 8601 to the second piped and in --json (and to an agent), an age on a terminal.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

const DAY_MS = 86_400_000;

/** A store written by hand (and age) with keys set three days and two hours ago, as the env of a run. */
function storeWithAges(): { env: Record<string, string>; threeDays: string; twoHours: string } {
  const data = tempDir();
  const identity = join(tempDir(), "id.txt");
  const made = Bun.spawnSync(["age-keygen", "-o", identity], { stderr: "pipe" });
  const recipient = (made.stderr.toString().match(/age1[0-9a-z]+/) ?? [""])[0] as string;
  const now = Date.now();
  const threeDays = new Date(now - 3 * DAY_MS - 3_600_000).toISOString();
  const twoHours = new Date(now - 2 * 3_600_000 - 60_000).toISOString();
  const lines = [
    "# rta kv 1",
    JSON.stringify({ name: "db/prod", value: "v1", comment: "primary", modified: threeDays }),
    JSON.stringify({ name: "db/stage", value: "v2", modified: twoHours }),
    JSON.stringify({ name: "solo", value: "v3", modified: twoHours }),
    JSON.stringify({ name: "team.ci", value: "v4", modified: threeDays }),
  ];
  const plain = join(tempDir(), "plain.txt");
  writeFileSync(plain, `${lines.join("\n")}\n`);
  const enc = Bun.spawnSync(["age", "-r", recipient, "-o", join(data, "kv.age"), plain]);
  if (enc.exitCode !== 0) throw new Error("age failed");
  return { env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir(), RTA_KV_IDENTITY: identity }, threeDays, twoHours };
}

const second = (iso: string) => iso.replace(/\.\d+Z$/, "Z");

describe("kv times", () => {
  test("kv overview: groups by prefix with ISO times piped and in --json, ages on a terminal", async () => {
    const { env, threeDays, twoHours } = storeWithAges();
    const piped = await rta(["kv", "overview"], { env });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(
      [
        `db/\tdb/prod\t${second(threeDays)}`,
        `db/\tdb/stage\t${second(twoHours)}`,
        `team.\tteam.ci\t${second(threeDays)}`,
        `(no prefix)\tsolo\t${second(twoHours)}`,
        "",
      ].join("\n"),
    );
    expect(piped.stdout).not.toContain("ago");
    const json = JSON.parse((await rta(["kv", "overview", "--json"], { env })).stdout);
    expect(json).toEqual({
      type: "table",
      columns: ["group", "name", "modified"],
      rows: [
        { group: "db/", name: "db/prod", modified: second(threeDays) },
        { group: "db/", name: "db/stage", modified: second(twoHours) },
        { group: "team.", name: "team.ci", modified: second(threeDays) },
        { group: "(no prefix)", name: "solo", modified: second(twoHours) },
      ],
      total: 4,
    });
    const term = await onTerminal(["kv", "overview"], env);
    expect(term.code).toBe(0);
    expect(term.out.split("\n").map((l) => l.trimEnd())).toEqual([
      "GROUP        NAME      MODIFIED",
      "db/          db/prod   3d ago",
      "db/          db/stage  2h ago",
      "team.        team.ci   3d ago",
      "(no prefix)  solo      2h ago",
      "",
    ]);
    // --json on a terminal is still ISO
    const termJson = await onTerminal(["kv", "overview", "--json"], env);
    expect(termJson.out).toContain(second(threeDays));
    expect(termJson.out).not.toContain("ago");
  });

  test("kv list: ISO piped and in --json, ages on a terminal", async () => {
    const { env, threeDays, twoHours } = storeWithAges();
    const piped = await rta(["kv", "list", "db/"], { env });
    expect(piped.stdout).toBe(`db/prod\tprimary\t${second(threeDays)}\ndb/stage\t\t${second(twoHours)}\n`);
    const json = JSON.parse((await rta(["kv", "list", "--json", "db/"], { env })).stdout);
    expect(json.rows).toEqual([
      { name: "db/prod", comment: "primary", modified: second(threeDays) },
      { name: "db/stage", comment: null, modified: second(twoHours) },
    ]);
    const term = await onTerminal(["kv", "list", "db/"], env);
    expect(term.out.split("\n").map((l) => l.trimEnd())).toEqual([
      "NAME      COMMENT  MODIFIED",
      "db/prod   primary  3d ago",
      "db/stage  -        2h ago",
      "",
    ]);
  });

  test("kv set: the time it set, to the second piped and in --json, as kv list gives it", async () => {
    const { env } = storeWithAges();
    const piped = await rta(["kv", "set", "fresh"], { env, stdin: "v5" });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^modified\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const json = JSON.parse((await rta(["kv", "set", "fresh", "--json"], { env, stdin: "v6" })).stdout);
    expect(json.value.modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const listed = JSON.parse((await rta(["kv", "list", "--json", "fresh"], { env })).stdout);
    expect(listed.rows[0].modified).toBe(json.value.modified);
  });
});
