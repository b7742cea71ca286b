/**
 * The record's checkpoint in gate.db: the count, MAC and size of the record
 * as last written, so a line taken out of the file or a file cut short is
 * found. Kept in the gate's database because its write lock already orders
 * every process sharing the data dir.
 */
import type { Database, Statement } from "bun:sqlite";
import { lap } from "../../core/profile.ts";
import type { RecordCheckpoint } from "../../record/append.ts";
import type { StoreWriteLock } from "../storeLock.ts";

export class CheckpointStore {
  private readonly read: Statement<RecordCheckpoint>;
  private readonly write: Statement;
  private readonly txn: { begin: Statement; commit: Statement; rollback: Statement };

  constructor(
    private readonly db: Database,
    private readonly writeLock: StoreWriteLock,
  ) {
    this.read = db.query("SELECT n, mac, size FROM record_checkpoint WHERE id = 1");
    this.write = db.query(
      "INSERT INTO record_checkpoint (id, n, mac, size) VALUES (1, $n, $mac, $size) ON CONFLICT (id) DO UPDATE SET n = $n, mac = $mac, size = $size",
    );
    this.txn = {
      begin: db.query("BEGIN IMMEDIATE"),
      commit: db.query("COMMIT"),
      rollback: db.query("ROLLBACK"),
    };
  }

  /** The record's checkpoint; all zero before the first keyed line. */
  current(): RecordCheckpoint {
    return this.read.get() ?? { n: 0, mac: "", size: 0 };
  }

  /**
   * Runs `append` holding the store's write lock, handing it the checkpoint,
   * and keeps the checkpoint it returns. Record lines are so appended one at a
   * time across every process sharing the data dir, each knowing the line
   * before it. What `append` throws leaves the checkpoint as it was; when the
   * checkpoint's update fails (a store SQLite opened read-only) or the commit
   * does (a full disk), `undo` is called to take the line back out of the
   * file, still holding the lock where SQLite lets it be held. Once a
   * line has waited the store's 5 s for the lock in vain, the next ones wait
   * briefly until one is written (see StoreWriteLock).
   */
  append(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void {
    this.writeLock.taking(() => this.txn.begin.run());
    try {
      const last = this.current();
      lap("record: gate.db lock and checkpoint read");
      const next = append(last);
      this.write.run(next);
    } catch (err) {
      // A checkpoint that could not be kept (a store SQLite opened read-only) takes its line out of the file too.
      try {
        undo();
      } finally {
        this.txn.rollback.run();
      }
      throw err;
    }
    try {
      this.txn.commit.run();
      lap("record: checkpoint write and commit");
    } catch (err) {
      undo();
      if (this.db.inTransaction) this.txn.rollback.run();
      throw err;
    }
  }
}
