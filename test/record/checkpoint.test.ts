/**
 * The record's checkpoint file beside gate.db: carried over from an older
 * data dir's gate.db row, kept at its name when removed or replaced, and the
 * cheaper identity asks (statx) agreeing with Node's stat.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { GateStore, RECORD_CHECKPOINT_FILE } from "../../src/gate/gateStore.ts";
import { FileRecord, type RecordCheckpoint, sessionMark } from "../../src/record/append.ts";
import { fdId, hasRoom, NameProbe } from "../../src/record/fileId.ts";
import { readRecordKey, recordKey } from "../../src/record/key.ts";
import { readRecord } from "../../src/record/read.ts";
import { verifyFile } from "../../src/record/verify.ts";
import { callEntry as entry, tempDir } from "../support/fixtures.ts";

function dataDir() {
  const dir = join(tempDir(), "data");
  const file = join(dir, "agent-log.jsonl");
  const db = join(dir, "gate.db");
  const checkpoint = join(dir, RECORD_CHECKPOINT_FILE);
  let store: GateStore | undefined;
  const open = () =>
    new FileRecord(file, {
      key: () => recordKey(dir),
      checkpoints: () => {
        store ??= new GateStore(db);
        return store;
      },
    });
  const stored = () => {
    const s = new GateStore(db);
    const c = s.recordCheckpoint();
    s.close();
    return c;
  };
  const verify = () => verifyFile(file, { key: readRecordKey(dir), checkpoint: stored(), alive: () => false });
  const row = () => {
    const d = new Database(db);
    const r = d.query("SELECT n, mac, size FROM record_checkpoint").all();
    d.close();
    return r;
  };
  return {
    dir,
    file,
    db,
    checkpoint,
    open,
    stored,
    verify,
    row,
    close: () => {
      store?.close();
      store = undefined;
    },
  };
}

describe("the record's checkpoint file", () => {
  test("is one fixed-size JSON text, 0600, moved by every line", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(sessionMark("start", "a", new Date(), "stdio"));
    rec.append(sessionMark("end", "a", new Date(), "stdio"));
    const text = readFileSync(d.checkpoint, "latin1");
    expect(text).toHaveLength(256);
    expect(text.endsWith("\n")).toBe(true);
    const last = readRecord(d.file).lines.at(-1);
    expect(JSON.parse(text)).toEqual({ n: 2, mac: last?.mac, size: statSync(d.file).size });
    expect(statSync(d.checkpoint).mode & 0o777).toBe(0o600);
    expect(d.row()).toEqual([]);
    d.close();
    expect(d.verify()).toMatchObject({ lines: 2, problems: [] });
  });

  test("an older data dir, its checkpoint a row of gate.db, verifies as it is, and its row moves to the file", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(sessionMark("start", "a", new Date(), "stdio"));
    rec.append(sessionMark("end", "a", new Date(), "stdio"));
    d.close();
    // as an older rta left it: the checkpoint in gate.db, no file
    const held = JSON.parse(readFileSync(d.checkpoint, "latin1"));
    rmSync(d.checkpoint);
    const db = new Database(d.db);
    db.query("INSERT INTO record_checkpoint (id, n, mac, size) VALUES (1, $n, $mac, $size)").run({
      $n: held.n,
      $mac: held.mac,
      $size: held.size,
    });
    db.close();
    expect(d.verify()).toMatchObject({ lines: 2, problems: [] });
    // and a cut tail still shows against the row
    const whole = readFileSync(d.file);
    writeFileSync(d.file, whole.subarray(0, whole.indexOf("\n") + 1));
    expect(d.verify().problems.map((p) => p.kind)).toContain("cut-tail");
    writeFileSync(d.file, whole);
    const next = d.open();
    next.append(sessionMark("start", "b", new Date(), "stdio"));
    expect(JSON.parse(readFileSync(d.checkpoint, "latin1")).n).toBe(3);
    expect(d.row()).toEqual([]);
    expect(d.verify()).toMatchObject({ lines: 3, problems: [expect.objectContaining({ kind: "cut-tail", line: 3 })] });
    next.close();
    // the row is gone: the file removed is a checkpoint gone, not the old row standing in for it
    rmSync(d.checkpoint);
    expect(d.verify().problems).toEqual([
      expect.objectContaining({ kind: "replaced", what: expect.stringContaining("no checkpoint") }),
      expect.objectContaining({ kind: "cut-tail", line: 3 }),
    ]);
  });

  test("removed under a running writer: the next line makes it again at its name", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(sessionMark("start", "a", new Date(), "stdio"));
    rmSync(d.checkpoint);
    rec.append(entry("a"));
    rec.append(sessionMark("end", "a", new Date(), "stdio"));
    expect(JSON.parse(readFileSync(d.checkpoint, "latin1")).n).toBe(3);
    expect(d.verify()).toMatchObject({ lines: 3, problems: [] });
  });

  test("replaced by an older copy under a running writer: the next line is written after the one it counts", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(sessionMark("start", "a", new Date(), "stdio"));
    const old = readFileSync(d.checkpoint);
    rec.append(entry("a"));
    writeFileSync(`${d.checkpoint}.copy`, old);
    renameSync(`${d.checkpoint}.copy`, d.checkpoint);
    rec.append(sessionMark("end", "a", new Date(), "stdio"));
    // the writer reads the file at the name, finds line 2 past it, and chains on from it
    expect(readRecord(d.file).lines.map((l) => l.n)).toEqual([1, 2, 3]);
    expect(JSON.parse(readFileSync(d.checkpoint, "latin1")).n).toBe(3);
    expect(d.verify()).toMatchObject({ lines: 3, problems: [] });
  });

  test("a link at its name refuses the line, and writes nothing where it leads", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(entry("a"));
    const before = readFileSync(d.file, "utf8");
    const elsewhere = join(tempDir(), "elsewhere");
    writeFileSync(elsewhere, "mine\n");
    rmSync(d.checkpoint);
    symlinkSync(elsewhere, d.checkpoint);
    expect(() => rec.append(entry("a"))).toThrow("the record cannot be written");
    expect(readFileSync(elsewhere, "utf8")).toBe("mine\n");
    expect(readFileSync(d.file, "utf8")).toBe(before);
  });

  test("garbage at its name is no checkpoint: --verify says so, and the next line writes a good one", () => {
    const d = dataDir();
    const rec = d.open();
    rec.append(sessionMark("start", "a", new Date(), "stdio"));
    writeFileSync(d.checkpoint, "x".repeat(256));
    expect(d.verify().problems.map((p) => p.kind)).toEqual(["replaced", "cut-tail"]);
    rec.append(sessionMark("end", "a", new Date(), "stdio"));
    expect(d.verify()).toMatchObject({ lines: 2, problems: [] });
  });

  test("a dir or a link at its name is no checkpoint to --verify, said as replaced, not as unreadable", () => {
    for (const put of [(at: string) => mkdirSync(at), (at: string) => symlinkSync(join(tempDir(), "x"), at)]) {
      const d = dataDir();
      const rec = d.open();
      rec.append(sessionMark("start", "a", new Date(), "stdio"));
      rec.append(sessionMark("end", "a", new Date(), "stdio"));
      d.close();
      rmSync(d.checkpoint);
      put(d.checkpoint);
      expect(d.verify().problems).toEqual([
        expect.objectContaining({ kind: "replaced", what: expect.stringContaining("no checkpoint") }),
      ]);
    }
  });
});

describe("beside a server of an earlier version, which keeps the checkpoint in gate.db's row", () => {
  /** An earlier rta's writer: the row read and written in the line's own transaction of gate.db. */
  const earlier = (file: string) => {
    const db = new Database(file);
    db.exec("PRAGMA busy_timeout = 5000");
    return {
      appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint) {
        db.exec("BEGIN IMMEDIATE");
        const last = db.query<RecordCheckpoint, []>("SELECT n, mac, size FROM record_checkpoint WHERE id = 1").get();
        const next = append(last ?? { n: 0, mac: "", size: 0 });
        db.query(
          "INSERT INTO record_checkpoint (id, n, mac, size) VALUES (1, $n, $mac, $size) ON CONFLICT (id) DO UPDATE SET n = $n, mac = $mac, size = $size",
        ).run({ $n: next.n, $mac: next.mac, $size: next.size });
        db.exec("COMMIT");
      },
      close: () => db.close(),
    };
  };

  test("each goes on from the other's lines, however many bytes of them there are", () => {
    const d = dataDir();
    const now = d.open();
    now.append(sessionMark("start", "now", new Date(), "stdio"));
    const old = earlier(d.db);
    const before = new FileRecord(d.file, { key: () => recordKey(d.dir), checkpoints: () => old });
    before.append(sessionMark("start", "old", new Date(), "stdio"));
    // more than the 64 KiB a writer reads back past its checkpoint, each way
    const long = { ...entry("now"), args: ["x".repeat(250)] };
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 300; i++) now.append(long);
      before.append(entry("old"));
      for (let i = 0; i < 300; i++) before.append({ ...long, session: "old" });
      now.append(entry("now"));
    }
    now.append(sessionMark("end", "now", new Date(), "stdio"));
    before.append(sessionMark("end", "old", new Date(), "stdio"));
    old.close();
    d.close();
    const lines = readRecord(d.file).lines;
    expect(lines.map((l) => l.n)).toEqual(lines.map((_, i) => i + 1));
    expect(d.verify()).toMatchObject({ lines: lines.length, problems: [] });
  });
});

describe("a disk's room", () => {
  test.skipIf(process.getuid?.() !== 0)(
    "a file system that counts no blocks (ramfs) is not taken for a full one",
    () => {
      const at = tempDir();
      expect(Bun.spawnSync(["mount", "-t", "ramfs", "ramfs", at]).exitCode).toBe(0);
      try {
        const file = join(at, "agent-log.jsonl");
        const rec = new FileRecord(file, {
          key: () => recordKey(at),
          checkpoints: () => new GateStore(join(at, "gate.db")),
        });
        rec.append(entry("a"));
        rec.close();
        expect(readRecord(file).lines).toHaveLength(1);
      } finally {
        Bun.spawnSync(["umount", "-l", at]);
      }
    },
  );
});

describe("statx, asked through libc", () => {
  test("says what Node's lstat and fstat say: a file, a dir, a link not followed, nothing", () => {
    const dir = tempDir();
    const file = join(dir, "f");
    writeFileSync(file, "12345");
    symlinkSync(file, join(dir, "l"));
    mkdirSync(join(dir, "d"));
    for (const name of ["f", "l", "d"]) {
      const path = join(dir, name);
      const s = lstatSync(path);
      expect(new NameProbe(path).id()).toMatchObject({ ino: s.ino, size: s.size, isFile: s.isFile() });
    }
    expect(new NameProbe(join(dir, "none")).id()).toBeUndefined();
    expect(new NameProbe(join(dir, "f", "under")).id()).toBeUndefined();
    const fd = openSync(file, "r");
    try {
      const byFd = fdId(fd);
      const byName = new NameProbe(file).id();
      expect(byFd).toEqual(byName as NonNullable<typeof byName>);
      expect(byFd?.ino).toBe(fstatSync(fd).ino);
      expect(hasRoom(fd, file)).toBe(true);
    } finally {
      closeSync(fd);
    }
  });
});
