// Spawned by writeLock.test.ts: one session's record lines into a shared data dir, written the way one rta version
// writes them. `now`: this version (the OFD lock on gate.db-shm's lock byte). `before`: the previous version (gate.db's
// lock taken by an empty transaction, the checkpoint in record.checkpoint): this version's store with no -shm file to
// lock. `row`: an rta from before record.checkpoint (the checkpoint a row of gate.db, written in the line's own
// transaction). Prints nothing; exits 1 when a line could not be written.
import { Database } from "bun:sqlite";
import { dirname, join } from "node:path";
import { GateStore } from "../../../src/gate/gateStore.ts";
import { FileRecord, type RecordCheckpoint, sessionMark } from "../../../src/record/append.ts";
import { recordKey } from "../../../src/record/key.ts";
import { callEntry } from "../../support/fixtures.ts";

const [file, version, session, count] = process.argv.slice(2) as [string, "now" | "before" | "row", string, string];
const data = dirname(file);
const db = join(data, "gate.db");

function rowStore() {
  const d = new Database(db);
  d.exec("PRAGMA busy_timeout = 5000");
  return {
    appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint) {
      d.exec("BEGIN IMMEDIATE");
      try {
        const last = d.query<RecordCheckpoint, []>("SELECT n, mac, size FROM record_checkpoint WHERE id = 1").get();
        const next = append(last ?? { n: 0, mac: "", size: 0 });
        d.query(
          "INSERT INTO record_checkpoint (id, n, mac, size) VALUES (1, $n, $mac, $size) ON CONFLICT (id) DO UPDATE SET n = $n, mac = $mac, size = $size",
        ).run({ $n: next.n, $mac: next.mac, $size: next.size });
        d.exec("COMMIT");
      } catch (err) {
        if (d.inTransaction) d.exec("ROLLBACK");
        throw err;
      }
    },
  };
}

function store() {
  if (version === "row") return rowStore();
  const s = new GateStore(db);
  // the previous version took gate.db's lock through SQLite alone: a store that finds no -shm file to lock
  if (version === "before") (s as unknown as { shmFile: null }).shmFile = null;
  return s;
}

const rec = new FileRecord(file, {
  key: () => recordKey(data),
  checkpoints: store,
  onFailure: (err) => {
    console.error(err);
    process.exit(1);
  },
});
rec.append(sessionMark("start", session, new Date(), "stdio"));
// Paced as a server's lines are (a call's answer comes between two), not back to back: a writer taking SQLite's lock
// polls for it (after 1, 2, 5 … 100 ms) and gives up after 5 s, so writers that never let the lock rest would starve
// it whatever lock they took.
for (let i = 0; i < Number(count); i++) {
  rec.append(callEntry(session));
  if (i % 20 === 19) Bun.sleepSync(1);
}
rec.append(sessionMark("end", session, new Date(), "stdio"));
rec.close();
