import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RtaError } from "../../src/core/errors.ts";
import { GateStore } from "../../src/gate/gateStore.ts";
import { type CheckpointStore, FileRecord, type RecordEntry, sessionMark } from "../../src/record/append.ts";
import { chainHash } from "../../src/record/chain.ts";
import { RECORD_KEY_FILE, readRecordKey, recordKey } from "../../src/record/key.ts";
import { eachRecordText, MAX_RECORD_LINE_BYTES, parseRecord, readRecord } from "../../src/record/read.ts";
import { verifyFile } from "../../src/record/verify.ts";
import { callEntry as entry, tempDir } from "../support/fixtures.ts";

/** A record in a data dir of its own, with its key and its checkpoint store, as a server has it. */
function dataDir(dir = join(tempDir(), "data")) {
  const file = join(dir, "agent-log.jsonl");
  const store = () => new GateStore(join(dir, "gate.db"));
  const open = (checkpoints: () => CheckpointStore = store) =>
    new FileRecord(file, { key: () => recordKey(dir), checkpoints, onFailure: (err) => console.error(err) });
  const verify = () => {
    const s = store();
    const v = verifyFile(file, { key: readRecordKey(dir), checkpoint: s.recordCheckpoint(), alive: () => false });
    s.close();
    return v;
  };
  return { dir, file, open, verify };
}

const ended = (rec: FileRecord, session: string, lines: RecordEntry[]) => {
  const t = new Date("2026-11-30T00:00:00Z");
  rec.append(sessionMark("start", session, t, "stdio"));
  for (const l of lines) rec.append(l);
  rec.append(sessionMark("end", session, t, "stdio"));
};

describe("FileRecord", () => {
  test("opens nothing until the first line, then appends one keyed JSON line per call with a per-session seq", () => {
    const d = dataDir();
    const rec = d.open();
    expect(() => statSync(d.dir)).toThrow();
    rec.append(entry("a"));
    rec.append(entry("b"));
    rec.append(entry("a"));
    rec.close();
    const { lines, malformed } = readRecord(d.file);
    expect(malformed).toEqual([]);
    expect(lines.map((l) => `${l.session}${l.seq}:${l.n}`)).toEqual(["a1:1", "b1:2", "a2:3"]);
    expect(lines.every((l) => /^[0-9a-f]{64}$/.test(l.mac ?? "") && l.hash === undefined)).toBe(true);
    expect(statSync(d.file).mode & 0o777).toBe(0o600);
    expect(statSync(d.dir).mode & 0o777).toBe(0o700);
  });

  test("the key is made once, 0600, and no temporary file is left", () => {
    const d = dataDir();
    const first = recordKey(d.dir);
    expect(recordKey(d.dir).equals(first)).toBe(true);
    expect(statSync(join(d.dir, RECORD_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(d.dir)).toEqual([RECORD_KEY_FILE]);
    writeFileSync(join(d.dir, RECORD_KEY_FILE), "not a key\n");
    expect(() => readRecordKey(d.dir)).toThrow("does not hold a key");
  });

  test("servers starting at once share one key: the first link wins and the others read it", async () => {
    const dir = join(tempDir(), "data");
    const script = join(import.meta.dir, "key.fixture.ts");
    const procs = Array.from({ length: 6 }, () => Bun.spawn([process.execPath, script, dir], { stdout: "pipe" }));
    const keys = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(readRecordKey(dir)?.toString("hex") as string);
    expect(readdirSync(dir)).toEqual([RECORD_KEY_FILE]);
  });

  test("a line that cannot be written throws core.record.unavailable and is handed over", () => {
    const dir = tempDir();
    let failed: unknown;
    const rec = new FileRecord(dir, {
      key: () => recordKey(tempDir()),
      checkpoints: () => new GateStore(join(tempDir(), "gate.db")),
      onFailure: (err) => {
        failed = err;
      },
    }); // a directory cannot be opened for append
    expect(() => rec.append(entry("a"))).toThrow(RtaError);
    try {
      rec.append(entry("a"));
    } catch (err) {
      expect((err as RtaError).code).toBe("core.record.unavailable");
    }
    expect((failed as NodeJS.ErrnoException).code).toBe("EISDIR");
  });

  test("a store that refuses leaves the file as it was and the session's numbering unspent", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(entry("a"));
    const before = readFileSync(d.file, "utf8");
    const failing = d.open(() => ({
      appendRecordLine: () => {
        throw new Error("database is locked");
      },
    }));
    expect(() => failing.append(entry("a"))).toThrow("the record cannot be written");
    expect(readFileSync(d.file, "utf8")).toBe(before);
    rec.append(entry("a"));
    expect(readRecord(d.file).lines.map((l) => l.seq)).toEqual([1, 2]);
  });

  test("a writer that died between its line and its checkpoint is picked up: the chain goes on from its line", () => {
    const d = dataDir();
    const rec = d.open();
    const store = new GateStore(join(d.dir, "gate.db"));
    rec.append(sessionMark("start", "a", new Date(), "stdio"));
    // the line is written, its checkpoint is not (a crash before the commit)
    const dying = d.open(() => ({ appendRecordLine: (append) => void append(store.recordCheckpoint()) }));
    dying.append(sessionMark("start", "b", new Date(), "stdio"));
    dying.append(sessionMark("end", "b", new Date(), "stdio"));
    rec.append(sessionMark("end", "a", new Date(), "stdio"));
    store.close();
    expect(readRecord(d.file).lines.map((l) => l.n)).toEqual([1, 2, 3, 4]);
    expect(d.verify()).toMatchObject({ lines: 4, problems: [] });
  });

  test("a cut tail, then more lines: the chain goes on from the checkpoint, so the cut shows", () => {
    const d = dataDir();
    const rec = d.open();
    ended(rec, "a", [entry("a"), entry("a")]);
    truncateSync(d.file, readFileSync(d.file, "utf8").split("\n").slice(0, 2).join("\n").length + 1);
    expect(d.verify().problems.map((p) => p.kind)).toContain("cut-tail");
    ended(rec, "b", [entry("b")]);
    expect(d.verify().problems.map((p) => p.kind)).toContain("cut-session");
  });

  test("a record from before the key stays readable; new lines are keyed after it", () => {
    const d = dataDir();
    mkdirSync(d.dir);
    const t = new Date("2026-11-30T00:00:00Z");
    let prev = "";
    const old = [sessionMark("start", "old", t, "stdio"), entry("old"), sessionMark("end", "old", t, "stdio")].map(
      (e, i) => {
        const line = { ...e, seq: i + 1 };
        prev = chainHash(prev, line);
        return `${JSON.stringify({ ...line, hash: prev })}\n`;
      },
    );
    writeFileSync(d.file, old.join(""));
    ended(d.open(), "new", [entry("new")]);
    expect(readRecord(d.file).lines.map((l) => `${l.session}:${l.n ?? "-"}`)).toEqual([
      "old:-",
      "old:-",
      "old:-",
      "new:1",
      "new:2",
      "new:3",
    ]);
    const v = d.verify();
    expect(v.unkeyed).toBe(3);
    expect(v.problems.map((p) => p.kind)).toEqual(["unkeyed"]);
  });

  test("a torn line left by an older writer is ended before the next line", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(entry("a"));
    appendFileSync(d.file, '{"time": "torn');
    rec.append(entry("a"));
    const read = parseRecord(readFileSync(d.file, "utf8"));
    expect(read.lines).toHaveLength(2);
    expect(read.malformed).toEqual([2]);
  });

  test("concurrent writers in separate processes keep one chain and one checkpoint: --verify passes", async () => {
    const d = dataDir();
    const writers = 4;
    const perWriter = 300;
    // The bench's writer, with a long agent name so that lines are longer than the bench's.
    const script = join(import.meta.dir, "..", "..", "bench", "fixtures", "recordWriter.ts");
    const procs = Array.from({ length: writers }, (_, i) =>
      Bun.spawn([process.execPath, script, d.file, `w${i}`, String(perWriter), "a".repeat(200)], {
        stdout: "ignore",
        stderr: "inherit",
      }),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual(Array(writers).fill(0));
    const { lines, malformed } = readRecord(d.file);
    expect(malformed).toEqual([]);
    expect(lines).toHaveLength(writers * (perWriter + 2));
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: lines.length }, (_, i) => i + 1));
    for (let i = 0; i < writers; i++) {
      const seqs = lines.filter((l) => l.session === `w${i}`).map((l) => l.seq);
      expect(seqs).toEqual(Array.from({ length: perWriter + 2 }, (_, n) => n + 1));
    }
    const store = new GateStore(join(d.dir, "gate.db"));
    expect(store.recordCheckpoint()).toEqual({
      n: lines.length,
      mac: lines.at(-1)?.mac as string,
      size: statSync(d.file).size,
    });
    store.close();
    expect(d.verify()).toMatchObject({ lines: writers * (perWriter + 2), problems: [] });
  });
});

describe("readRecord", () => {
  test("a missing record reads as empty", () => {
    expect(readRecord(join(tempDir(), "none.jsonl"))).toEqual({ lines: [], malformed: [] });
  });

  test("a torn or edited line is counted, and the rest stays readable", () => {
    const good = JSON.stringify({ ...entry("a"), seq: 1 });
    const read = parseRecord(`${good}\n{"time": "x", "sess\nnot json\n${good}\n`);
    expect(read.lines).toHaveLength(2);
    expect(read.malformed).toEqual([2, 3]);
  });

  test("read a chunk at a time: lines across chunks, one too long to hold, no final newline", () => {
    const file = join(tempDir(), "agent-log.jsonl");
    const good = JSON.stringify({ ...entry("a"), seq: 1 });
    // a line that straddles the first 1 MiB chunk, one past MAX_RECORD_LINE_BYTES, and a last line without \n
    const straddles = JSON.stringify({ ...entry("a"), seq: 2, agent: "x".repeat(1024 * 1024 - 500) });
    writeFileSync(file, `${good}\n\n${straddles}\n${"z".repeat(MAX_RECORD_LINE_BYTES * 2 + 7)}\n${good}`);
    const seen: [number, string | undefined][] = [];
    eachRecordText(file, (text, at) => seen.push([at, text === undefined ? undefined : text.slice(0, 8)]));
    expect(seen).toEqual([
      [1, good.slice(0, 8)],
      [3, straddles.slice(0, 8)],
      [4, undefined],
      [5, good.slice(0, 8)],
    ]);
    const read = readRecord(file);
    expect(read.lines.map((l) => l.seq)).toEqual([1, 2, 1]);
    expect(read.malformed).toEqual([4]);
  });
});
