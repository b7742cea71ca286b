/**
 * gate.db's write lock taken as an OFD lock on its byte of gate.db-shm (store/shm.ts), and its wal-index header
 * read in place of PRAGMA data_version: writers of this version, of the previous one (SQLite's lock) and of the one
 * before (the checkpoint as gate.db's row) still append in turn across processes; each kind of lock stops the other;
 * a stuck holder is named; and a lock or lift from another connection is seen at the next call, with or without the
 * -shm file.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { GateStore } from "../../../src/gate/gateStore.ts";
import type { ShmFile } from "../../../src/gate/store/shm.ts";
import { storeLockHolders } from "../../../src/gate/storeLock.ts";
import { readRecordKey } from "../../../src/record/key.ts";
import { readRecord } from "../../../src/record/read.ts";
import { verifyFile } from "../../../src/record/verify.ts";
import { tempDir } from "../../support/fixtures.ts";

const writer = join(import.meta.dir, "writer.fixture.ts");

/** A process holding gate.db-shm's lock byte as this version's writer does, until killed; resolves once held. */
async function holdByte(db: string): Promise<{ pid: number; end: () => Promise<void> }> {
  const script = `
    const { GateStore } = require(${JSON.stringify(join(import.meta.dir, "../../../src/gate/gateStore.ts"))});
    const s = new GateStore(${JSON.stringify(db)});
    globalThis.keptStore = s; // a store collected would close gate.db, and SQLite remove the -shm file under the lock
    const shm = s.shm();
    if (!shm || !shm.tryLock()) { console.log("not held"); process.exit(1); }
    console.log("held");
    setInterval(() => {}, 1000);
  `;
  const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const { value } = await p.stdout.getReader().read();
  expect(new TextDecoder().decode(value)).toContain("held");
  return {
    pid: p.pid,
    end: async () => {
      p.kill("SIGKILL");
      await p.exited;
    },
  };
}

describe("gate.db's write lock as an OFD lock on its byte of gate.db-shm", () => {
  test("is what this machine's stores take (else the test below proves nothing new)", () => {
    const s = new GateStore(join(tempDir(), "gate.db"));
    try {
      expect((s as unknown as { shm: () => ShmFile | undefined }).shm()?.canLock).toBe(true);
    } finally {
      s.close();
    }
  });

  test("writers of this version, of the previous one and of the one before append in turn, across processes", async () => {
    const data = tempDir();
    const file = join(data, "agent-log.jsonl");
    new GateStore(join(data, "gate.db")).close();
    const LINES = 1500;
    const runs = [
      ["now", "a"],
      ["now", "b"],
      ["before", "c"],
      ["row", "d"],
    ].map(([version, session]) =>
      Bun.spawn([process.execPath, writer, file, version as string, session as string, String(LINES)], {
        stderr: "pipe",
      }),
    );
    const codes = await Promise.all(runs.map((p) => p.exited));
    const errors = await Promise.all(runs.map((p) => new Response(p.stderr).text()));
    expect({ codes, errors }).toEqual({ codes: [0, 0, 0, 0], errors: ["", "", "", ""] });
    const lines = readRecord(file).lines;
    expect(lines).toHaveLength(4 * (LINES + 2));
    expect(lines.map((l) => l.n)).toEqual(lines.map((_, i) => i + 1));
    const store = new GateStore(join(data, "gate.db"));
    const checkpoint = store.recordCheckpoint();
    store.close();
    const verdict = verifyFile(file, { key: readRecordKey(data), checkpoint, alive: () => false });
    expect(verdict).toMatchObject({ lines: lines.length, problems: [] });
  }, 60_000);

  test("held by a writer of this version, SQLite's writers wait (an earlier rta's line, a grant's use), and it is named", async () => {
    const data = tempDir();
    const db = join(data, "gate.db");
    new GateStore(db).close();
    const held = await holdByte(db);
    const other = new Database(db);
    try {
      other.exec("PRAGMA busy_timeout = 50");
      expect(() => other.exec("BEGIN IMMEDIATE")).toThrow(/locked/);
      // the kernel shows an OFD lock with no process: its holder is found through /proc/<pid>/fdinfo, and said
      // stopped when it is (a stdio server its client stopped in the middle of a line)
      expect(storeLockHolders(db)).toEqual([{ pid: held.pid, stopped: false }]);
      process.kill(held.pid, "SIGSTOP");
      await Bun.sleep(50);
      expect(storeLockHolders(db)).toEqual([{ pid: held.pid, stopped: true }]);
      process.kill(held.pid, "SIGCONT");
      await held.end();
      other.exec("BEGIN IMMEDIATE");
      other.exec("COMMIT");
    } finally {
      await held.end();
      other.close();
    }
  });

  test("held by SQLite in another process (an earlier rta, a person's sqlite3), it is not taken", async () => {
    const data = tempDir();
    const db = join(data, "gate.db");
    const mine = new GateStore(db);
    const script = `
      const { Database } = require("bun:sqlite");
      const d = new Database(${JSON.stringify(db)});
      d.exec("BEGIN IMMEDIATE");
      console.log("held");
      setInterval(() => {}, 1000);
    `;
    const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
    try {
      const { value } = await p.stdout.getReader().read();
      expect(new TextDecoder().decode(value)).toContain("held");
      const shm = (mine as unknown as { shm: () => ShmFile }).shm();
      expect(shm.tryLock()).toBe(false);
      p.kill("SIGKILL");
      await p.exited;
      expect(shm.tryLock()).toBe(true);
      shm.unlock();
    } finally {
      p.kill("SIGKILL");
      mine.close();
    }
  });
});

describe("the lock check, by gate.db's wal-index header", () => {
  for (const shm of [true, false]) {
    test(`sees a lock and a lift from another connection at the next ask (${shm ? "the header" : "no -shm file: data_version"})`, () => {
      const db = join(tempDir(), "gate.db");
      const server = new GateStore(db);
      if (!shm) (server as unknown as { shmFile: null }).shmFile = null;
      const person = new GateStore(db);
      try {
        expect(server.lockFor("claude", ["sys.info", "sys"], 1000)).toBeUndefined();
        expect(server.lockFor("claude", ["sys.info", "sys"], 1000)).toBeUndefined();
        const lock = person.lock({ agent: "Claude", target: "sys", issued_at: 1, expires_at: null, issued_by: "t" });
        expect(server.lockFor("claude", ["sys.info", "sys"], 1000)?.id).toBe(lock.id);
        // a commit of something else (a grant) changes nothing the check says
        person.issue({
          target: "fs.read",
          record: null,
          agent: "claude",
          connection: null,
          profile: null,
          host: null,
          args_digest: null,
          max_uses: 1,
          issued_at: 1,
          expires_at: 10_000,
          issued_by: "t",
          build: "b",
          digest: null,
        });
        expect(server.lockFor("claude", ["sys.info", "sys"], 1000)?.id).toBe(lock.id);
        expect(person.lift({ id: lock.id }, 2)).toBe(1);
        expect(server.lockFor("claude", ["sys.info", "sys"], 1000)).toBeUndefined();
      } finally {
        person.close();
        server.close();
      }
    });
  }
});
