import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { MemoryRecord, type RecordCheckpoint, type RecordLine, sessionMark } from "../../src/record/append.ts";
import { chainHash, chainMac } from "../../src/record/chain.ts";
import { type Problem, verifyRecord } from "../../src/record/verify.ts";
import { callEntry as call } from "../support/fixtures.ts";

const key = randomBytes(32);
const t = new Date("2026-11-30T00:00:00Z");

/** Three sessions as servers would write them: aaaa and bbbb interleaved, then cccc; all ended. */
function record(): MemoryRecord {
  const m = new MemoryRecord(key);
  m.append(sessionMark("start", "aaaa", t, "stdio"));
  m.append(sessionMark("start", "bbbb", t, "stdio"));
  for (let i = 0; i < 4; i++) {
    m.append(call("aaaa", `tool_a${i}`));
    m.append(call("bbbb", `tool_b${i}`));
  }
  m.append(sessionMark("end", "aaaa", t, "stdio"));
  m.append(sessionMark("end", "bbbb", t, "stdio"));
  m.append(sessionMark("start", "cccc", t, "stdio"));
  m.append(call("cccc", "tool_c"));
  m.append(sessionMark("end", "cccc", t, "stdio"));
  return m;
}
const rowsOf = (m: MemoryRecord) => m.lines.map((l) => JSON.stringify(l));
const text = (rows: string[]) => `${rows.join("\n")}\n`;
const checkpointOf = (m: MemoryRecord): RecordCheckpoint => {
  const last = m.lines.at(-1) as RecordLine;
  return { n: last.n as number, mac: last.mac as string, size: 0 };
};
const dead = () => false;
const kinds = (problems: Problem[]) => [...new Set(problems.map((p) => p.kind))].sort();

function verify(rows: string[], checkpoint?: RecordCheckpoint, k: Buffer | null = key) {
  return verifyRecord(text(rows), { ...(k ? { key: k } : {}), ...(checkpoint ? { checkpoint } : {}), alive: dead });
}

describe("--verify on a keyed record", () => {
  test("an untouched record passes, its checkpoint included", () => {
    const m = record();
    expect(verify(rowsOf(m), checkpointOf(m))).toEqual({ sessions: 3, lines: 15, problems: [], open: [], unkeyed: 0 });
  });

  test("one call cut and the unkeyed sha256 chain recomputed (today's attack) is a cut inside and a forgery", () => {
    const m = record();
    const cutAt = m.lines.findIndex((l) => l.session === "aaaa" && l.seq === 3);
    const lines = m.lines.filter((_, i) => i !== cutAt);
    // renumber and rechain from the cut on, as an attacker without the key would: no mac they can make is right
    let prev = (m.lines[cutAt - 1] as RecordLine).mac as string;
    const rows = lines.map((l, i) => {
      if (i < cutAt) return JSON.stringify(l);
      const moved = { ...l, n: i + 1, seq: l.session === "aaaa" && l.seq > 3 ? l.seq - 1 : l.seq };
      prev = chainHash(prev, moved);
      return JSON.stringify({ ...moved, mac: prev });
    });
    expect(kinds(verify(rows, checkpointOf(m)).problems)).toEqual(["cut-tail", "forged"]);
    // and cut without touching anything else: its session's numbering skips
    const cut = rowsOf(m).filter((r) => !(r.includes('"aaaa"') && r.includes('"seq":3,')));
    const v = verify(cut, checkpointOf(m));
    expect(v.problems).toEqual([
      expect.objectContaining({ kind: "cut-inside", session: "aaaa", what: expect.stringContaining("1 line(s)") }),
    ]);
  });

  test("a whole session cut out is a cut session", () => {
    const m = record();
    const rows = rowsOf(m).filter((r) => !r.includes('"cccc"') || r.includes('"end"'));
    // cccc's start and its call gone, its end left: the numbering shows the head of a session cut
    expect(kinds(verify(rows, checkpointOf(m)).problems)).toContain("cut-inside");
    const whole = rowsOf(m).filter((r) => !r.includes('"bbbb"'));
    expect(verify(whole, checkpointOf(m)).problems).toEqual([
      expect.objectContaining({ kind: "cut-session", what: expect.stringContaining("6 missing line(s)") }),
    ]);
  });

  test("a cut tail is named by the checkpoint, even when it ends on a whole session", () => {
    const m = record();
    const rows = rowsOf(m).slice(0, 12); // cccc gone entirely: every session left is ended
    expect(verify(rows, checkpointOf(m)).problems).toEqual([
      expect.objectContaining({ kind: "cut-tail", line: 12, what: expect.stringContaining("last 3 line(s) were cut") }),
    ]);
    // without the checkpoint it would pass: that is what the checkpoint is for
    expect(verify(rows).problems).toEqual([]);
  });

  test("a made-up session appended is forged, whatever chain it claims", () => {
    const m = record();
    const rows = rowsOf(m);
    const last = m.lines.at(-1) as RecordLine;
    const fake = new MemoryRecord(randomBytes(32));
    fake.append(sessionMark("start", "ffff", t, "stdio"));
    fake.append(call("ffff", "fs_rm"));
    fake.append(sessionMark("end", "ffff", t, "stdio"));
    const forged = fake.lines.map((l, i) => {
      const moved = { ...l, n: (last.n as number) + i + 1 };
      return JSON.stringify({ ...moved, mac: chainMac(randomBytes(32), last.mac as string, moved) });
    });
    const v = verify([...rows, ...forged], checkpointOf(m));
    expect(v.problems.map((p) => [p.kind, p.line])).toEqual([
      ["forged", 16],
      ["forged", 17],
      ["forged", 18],
    ]);
  });

  test("an altered line is forged; the lines after it still verify", () => {
    const rows = rowsOf(record());
    rows[4] = (rows[4] as string).replace('"outcome":"ok"', '"outcome":"core.grant.required"');
    expect(verify(rows).problems).toEqual([expect.objectContaining({ kind: "forged", line: 5, session: "aaaa" })]);
  });

  test("two lines swapped are reordered", () => {
    const rows = rowsOf(record());
    [rows[2], rows[4]] = [rows[4] as string, rows[2] as string];
    const v = verify(rows);
    expect(kinds(v.problems)).toEqual(["reordered"]);
  });

  test("a file other than the one the checkpoint knows is replaced", () => {
    const m = record();
    const other = new MemoryRecord(key);
    for (let i = 0; i < 15; i++) other.append(call("zzzz", "sys_info"));
    const v = verify(
      rowsOf(other).map((r, i) => (i === 0 ? r.replace("zzzz", "zzzz") : r)),
      checkpointOf(m),
    );
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: "replaced", line: 15 }));
    expect(verify([], checkpointOf(m)).problems).toEqual([expect.objectContaining({ kind: "replaced", line: 0 })]);
    const otherKey = verify(rowsOf(record()), undefined, randomBytes(32));
    expect(otherKey.problems).toEqual([
      expect.objectContaining({ kind: "replaced", what: expect.stringContaining("not one line verifies") }),
    ]);
  });

  test("a missing key or a missing checkpoint is said, not passed", () => {
    const m = record();
    expect(verify(rowsOf(m), checkpointOf(m), null).problems).toEqual([
      expect.objectContaining({ kind: "replaced", what: expect.stringContaining("key is missing") }),
    ]);
    expect(verify(rowsOf(m), { n: 0, mac: "", size: 0 }).problems).toEqual([
      expect.objectContaining({ kind: "replaced", what: expect.stringContaining("no checkpoint") }),
    ]);
  });

  test("a session whose server still runs is open, not broken; one whose end is missing is a cut tail", () => {
    const rows = rowsOf(record()).filter((r) => !(r.includes('"kind":"end"') && r.includes("aaaa")));
    const v = verifyRecord(text(rows), { key, alive: () => true });
    expect(kinds(v.problems)).toEqual(["cut-session"]); // its end line's place in the chain is missing
    expect(v.open).toEqual(["aaaa"]);
    expect(kinds(verify(rows).problems)).toEqual(["cut-session", "cut-tail"]);
  });

  test("a line that is not JSON is named", () => {
    const rows = rowsOf(record());
    rows[3] = "{garbage";
    expect(verify(rows).problems).toContainEqual(
      expect.objectContaining({ kind: "forged", line: 4, what: "is not a record line" }),
    );
  });
});

describe("--verify on a record from before the key", () => {
  /** Lines as the unkeyed writer wrote them: sha256 chained per session, no n, no mac. */
  function unkeyedRows(): string[] {
    const last = new Map<string, { seq: number; hash: string }>();
    const entries = [sessionMark("start", "oooo", t, "stdio"), call("oooo"), sessionMark("end", "oooo", t, "stdio")];
    return entries.map((e) => {
      const prev = last.get(e.session) ?? { seq: 0, hash: "" };
      const line = { ...e, seq: prev.seq + 1 };
      const hash = chainHash(prev.hash, line);
      last.set(e.session, { seq: line.seq, hash });
      return JSON.stringify({ ...line, hash });
    });
  }

  test("is said once as unkeyed, not passed and not a crash", () => {
    const v = verifyRecord(text(unkeyedRows()), { alive: dead });
    expect(v.unkeyed).toBe(3);
    expect(v.problems).toEqual([
      expect.objectContaining({
        kind: "unkeyed",
        line: 1,
        what: expect.stringContaining("before the record had a key"),
      }),
    ]);
  });

  test("keyed lines after it are verified as any other", () => {
    const m = record();
    const v = verify([...unkeyedRows(), ...rowsOf(m)], checkpointOf(m));
    expect(kinds(v.problems)).toEqual(["unkeyed"]);
    expect(v.lines).toBe(18);
  });
});

describe("--verify against lines made to trip it up", () => {
  test("an unkeyed line after keyed ones is forged, not passed off as old", () => {
    const m = record();
    const made = { ...call("ffff"), seq: 1 };
    const rows = [...rowsOf(m), JSON.stringify({ ...made, hash: chainHash("", made) })];
    const v = verify(rows, checkpointOf(m));
    expect(v.unkeyed).toBe(0);
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: "forged", line: 16 }));
  });

  test("a huge or broken place is refused at once, never walked", () => {
    const m = record();
    const rows = rowsOf(m);
    const last = m.lines.at(-1) as RecordLine;
    const huge = { ...call("aaaa"), seq: 2 ** 53 - 1, n: (last.n as number) + 1, mac: "0".repeat(64) };
    const broken = { ...call("aaaa"), seq: 1.5, n: -1, mac: "x" };
    const v = verify([...rows, JSON.stringify(huge), JSON.stringify(broken)], checkpointOf(m));
    expect(v.problems.map((p) => [p.kind, p.line])).toContainEqual(["forged", 16]);
    expect(v.problems.map((p) => [p.kind, p.line])).toContainEqual(["forged", 17]);
  });
});
