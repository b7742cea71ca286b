/**
 * The record in PostgreSQL (pgRecord.ts, pgRecordRead.ts) against a real server (test/support/pg.ts): lines appended
 * in the same turn go in one statement, at most 512 to one; every line acknowledged is a row; a batch the store
 * refuses is refused to each of its lines as core.record.unavailable and the session goes on after it; two writers'
 * sessions each verify, chained into one chain of session starts; --follow's look reads only the sessions that can
 * have new lines.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { PgRecord } from "../../../src/gate/store/pgRecord.ts";
import { PgRecordReader } from "../../../src/gate/store/pgRecordRead.ts";
import { PgGateStore } from "../../../src/gate/store/pgStore.ts";
import type { RecordEntry } from "../../../src/record/line.ts";
import { pgServer } from "../../support/pg.ts";

const pg = await pgServer();
const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c();
});

const entry = (session: string, i: number): RecordEntry => ({
  time: new Date(1_800_000_000_000 + i).toISOString(),
  session,
  agent: "claude",
  client: "test 1",
  transport: "http",
  capability: "fs_write",
  outcome: "ok",
  duration_ms: i,
  args: ["path"],
});

/** A fresh store, migrated, and a record on it whose statements are counted. */
async function fresh(): Promise<{ url: string; record: PgRecord; statements: () => number }> {
  const url = await (pg?.freshDb() as Promise<string>);
  new PgGateStore(url).close();
  const record = new PgRecord(url);
  closing.push(() => record.close());
  let statements = 0;
  const commit = (record as unknown as { commit: (e: RecordEntry[]) => Promise<void> }).commit.bind(record);
  (record as unknown as { commit: (e: RecordEntry[]) => Promise<void> }).commit = (e) => {
    statements++;
    return commit(e);
  };
  return { url, record, statements: () => statements };
}

function verdict(url: string) {
  const reader = new PgRecordReader(url);
  try {
    return reader.verify();
  } finally {
    reader.close();
  }
}

describe.skipIf(pg === null)("the record in PostgreSQL", () => {
  test("lines appended in one turn are one batch, at most 512 to one, and each acknowledged line is a row", async () => {
    const { url, record, statements } = await fresh();
    await Promise.all(Array.from({ length: 200 }, (_, i) => record.append(entry("s1", i))));
    expect(statements()).toBe(1);
    await Promise.all(Array.from({ length: 1000 }, (_, i) => record.append(entry("s1", 200 + i))));
    expect(statements()).toBe(3);
    const sql = new SQL(url, { max: 1 });
    const [row] = await sql.unsafe("SELECT count(*)::int AS n, max(seq)::int AS top FROM record_lines");
    const [tip] = await sql.unsafe("SELECT last_seq::int AS seq FROM record_sessions WHERE session = 's1'");
    await sql.close();
    expect({ n: row.n, top: row.top, checkpoint: tip.seq }).toEqual({ n: 1200, top: 1200, checkpoint: 1200 });
    expect(verdict(url)).toMatchObject({ sessions: 1, lines: 1200, problems: [] });
  });

  test("a batch the store refuses is refused to each of its lines, and the session goes on after it", async () => {
    const { url, record } = await fresh();
    await record.append(entry("s1", 0));
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe("ALTER TABLE record_lines RENAME TO away");
    const refused = await Promise.allSettled([record.append(entry("s1", 1)), record.append(entry("s1", 2))]);
    expect(refused.map((r) => (r.status === "rejected" ? (r.reason as { code: string }).code : "ok"))).toEqual([
      "core.record.unavailable",
      "core.record.unavailable",
    ]);
    await sql.unsafe("ALTER TABLE away RENAME TO record_lines");
    await record.append(entry("s1", 3));
    const lines = await sql.unsafe("SELECT seq::int AS seq, line FROM record_lines ORDER BY seq");
    await sql.close();
    expect(lines.map((l: { seq: number; line: string }) => [l.seq, JSON.parse(l.line).duration_ms])).toEqual([
      [1, 0],
      [2, 3],
    ]);
    expect(verdict(url).problems).toEqual([]);
  });

  test("two writers' sessions at once each verify, chained into one chain of session starts", async () => {
    const { url, record } = await fresh();
    const other = new PgRecord(url);
    closing.push(() => other.close());
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? record : other).append(entry(i % 2 ? "a" : "b", i))),
    );
    await Promise.all([record.append(entry("c", 0)), other.append(entry("d", 0))]);
    const v = verdict(url);
    expect(v).toMatchObject({ sessions: 4, lines: 102, problems: [] });
    const sql = new SQL(url, { max: 1 });
    const [head] = await sql.unsafe("SELECT sessions::int AS n FROM record_head");
    await sql.close();
    expect(head.n).toBe(4);
  });

  test("a store whose record tables were dropped is replaced, not verified empty; one never migrated is empty", async () => {
    const { url, record } = await fresh();
    await record.append(entry("a", 0));
    expect(verdict(url)).toMatchObject({ lines: 1, problems: [] });
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe("DROP TABLE record_lines, record_sessions, record_head, record_key");
    await sql.close();
    expect(verdict(url).problems.map((p) => p.kind)).toEqual(["replaced"]);
    const empty = await (pg?.freshDb() as Promise<string>);
    expect(verdict(empty)).toMatchObject({ sessions: 0, lines: 0, problems: [] });
  });

  test("--follow's look asks only sessions started since and those not ended, and hands on each new line once", async () => {
    const { url, record } = await fresh();
    await record.append(entry("done", 0));
    await record.append({ ...entry("done", 1), kind: "end", outcome: "end" });
    await record.append(entry("live", 2));
    const reader = new PgRecordReader(url);
    closing.push(() => reader.close());
    const listed: string[] = [];
    reader.eachLine((l) => listed.push(`${l?.session} ${l?.seq}`));
    expect(listed).toEqual(["done 1", "done 2", "live 1"]);
    expect(reader.fresh()).toEqual([]);
    await record.append(entry("live", 3));
    await record.append(entry("later", 4));
    expect(reader.fresh().map((l) => `${l.session} ${l.seq}`)).toEqual(["live 2", "later 1"]);
    expect(reader.fresh()).toEqual([]);
    // a session that ended is not asked again: a row forced in after its end (which --verify names) is not looked for
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe(
      "INSERT INTO record_lines (session, seq, line) SELECT 'done', 3, line FROM record_lines WHERE session = 'done' AND seq = 1",
    );
    await sql.unsafe("UPDATE record_sessions SET last_seq = 3 WHERE session = 'done'");
    await sql.close();
    await record.append(entry("live", 5));
    expect(reader.fresh().map((l) => `${l.session} ${l.seq}`)).toEqual(["live 3"]);
  });

  test("a server's session id a past session in the store has is not taken: the next id free there is", async () => {
    const { url, record } = await fresh();
    const [first, second] = ["5e55104a", "5e55104b"] as const;
    const next = () => second;
    // a fresh store, its record not yet made by a migration, takes the id as it is
    const empty = new PgRecord(await (pg?.freshDb() as Promise<string>));
    closing.push(() => empty.close());
    expect(await empty.freshSession(first, next)).toBe(first);
    await record.append({ ...entry(first, 0), kind: "end", outcome: "end" });
    const later = new PgRecord(url);
    closing.push(() => later.close());
    const session = await later.freshSession(first, next);
    expect(session).toBe(second);
    await later.append(entry(session, 1));
    expect(verdict(url)).toMatchObject({ sessions: 2, problems: [] });
    // what the id kept would have done: go on after the past session's end, which --verify says as tampering
    const same = new PgRecord(url);
    closing.push(() => same.close());
    await same.append(entry(first, 2));
    expect(verdict(url).problems.map((p) => p.kind)).toEqual(["reordered"]);
    // a store that cannot be asked keeps the id: the server says so as it opens the store
    const away = new PgRecord("postgres://rta@127.0.0.1:1/none");
    expect(await away.freshSession("abad1dea", next)).toBe("abad1dea");
  });
});
