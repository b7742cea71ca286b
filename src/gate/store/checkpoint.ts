/**
 * The record's checkpoint: the count, MAC and size of the record as last
 * written, so a line taken out of the file or a file cut short is found. It
 * is a file of its own beside gate.db, `record.checkpoint` (checkpointFile.ts):
 * one fixed-size JSON text, read and rewritten in place (one pread, one
 * pwrite) by each line's writer while it holds gate.db's write lock, the lock
 * that already orders every process sharing the data dir, of any version.
 *
 * The lock is taken as an OFD lock on its byte of gate.db's -shm file (one
 * fcntl each way, shm.ts), which conflicts with SQLite's own. Where that
 * cannot be had, and for a connection's first line (whose write statement
 * proves gate.db writable), it is taken by an empty transaction (BEGIN
 * IMMEDIATE, COMMIT), which writes nothing to gate.db either.
 *
 * An older rta kept the checkpoint as a row of gate.db, written in each
 * line's transaction. A server of that version may still be running after an
 * upgrade: a row found is weighed against the file and deleted (so that such
 * a server goes on from the record's last line, not its own), which takes
 * SQLite's lock. The row is looked for only when gate.db has had a commit
 * since a line last found none (its wal-index header says).
 */
import type { Database, Statement } from "bun:sqlite";
import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { lap } from "../../core/profile.ts";
import type { RecordCheckpoint } from "../../record/append.ts";
import { type FileId, fdId, NameProbe, sameFile } from "../../record/fileId.ts";
import type { StoreWriteLock } from "../storeLock.ts";
import { CHECKPOINT_BYTES, checkpointBytes, NONE, parseCheckpoint, readNamedCheckpoint } from "./checkpointFile.ts";
import { CommitMark, type ShmFile } from "./shm.ts";

/** The checkpoint's file name inside the data dir. */
export const RECORD_CHECKPOINT_FILE = "record.checkpoint";

/** The checkpoint file as this process has it open. */
interface OpenCheckpoint {
  fd: number;
  id: FileId;
}

export class CheckpointStore {
  private readonly row: Statement<RecordCheckpoint>;
  private readonly dropRow: Statement;
  private readonly txn: { begin: Statement; commit: Statement; rollback: Statement };
  private readonly probe: NameProbe;
  private open: OpenCheckpoint | undefined;
  /** what the file held when last read or written, and the checkpoint those bytes are, to skip a parse */
  private known: { bytes: Buffer; checkpoint: RecordCheckpoint } | undefined;
  private readonly scratch = Buffer.alloc(CHECKPOINT_BYTES);
  /** a write statement has run in this connection's lock: it really holds gate.db's write lock */
  private writable = false;
  private readonly noWrite: Statement;
  /** gate.db when a line last found no older rta's row in it (by its wal-index header) */
  private readonly rowless = new CommitMark();
  /** the last line found an older rta's row: one of its servers is writing, and lines are written under its lock */
  private rowSeen = false;

  constructor(
    private readonly db: Database,
    private readonly writeLock: StoreWriteLock,
    readonly file: string,
    /** gate.db's -shm file, when its lock byte can be taken */
    private readonly shm: () => ShmFile | undefined,
  ) {
    this.row = db.query("SELECT n, mac, size FROM record_checkpoint WHERE id = 1");
    this.dropRow = db.query("DELETE FROM record_checkpoint WHERE id = 1");
    this.noWrite = db.query("DELETE FROM record_checkpoint WHERE 0");
    this.txn = {
      begin: db.query("BEGIN IMMEDIATE"),
      commit: db.query("COMMIT"),
      rollback: db.query("ROLLBACK"),
    };
    this.probe = new NameProbe(file);
  }

  /** Lets go of the checkpoint file, if this process opened it. */
  close(): void {
    if (this.open) closeSync(this.open.fd);
    this.open = undefined;
    this.known = undefined;
  }

  /**
   * The record's checkpoint, for --verify; all zero before the first keyed
   * line, or when the file and gate.db hold none. Read without the write lock,
   * so a stopped server holding it does not stop --verify; a file that may
   * have been read while a writer rewrote it (two reads differ, or its text
   * does not parse) is read again holding the lock. Makes nothing.
   */
  current(): RecordCheckpoint {
    const read = readNamedCheckpoint(this.file);
    if (read !== "torn") return this.later(read);
    return this.writeLock.operator(() => {
      this.txn.begin.run();
      try {
        const again = readNamedCheckpoint(this.file);
        return this.later(again === "torn" ? NONE : again);
      } finally {
        this.txn.rollback.run();
      }
    });
  }

  /** The later of the file's checkpoint and gate.db's row, which a server of an earlier version may have moved since. */
  private later(file: RecordCheckpoint): RecordCheckpoint {
    const row = this.row.get();
    return row && row.n > file.n ? row : file;
  }

  /**
   * Runs `append` holding gate.db's write lock, handing it the checkpoint,
   * and writes the checkpoint it returns. Record lines are so appended one at
   * a time across every process sharing the data dir, each knowing the line
   * before it. What `append` throws leaves the checkpoint as it was; when the
   * checkpoint cannot be written, `undo` is called to take the line back out
   * of the file, still holding the lock, and the checkpoint is put back. Once
   * a line has waited the store's 5 s for the lock in vain, the next ones wait
   * briefly until one is written (see StoreWriteLock).
   */
  append(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void {
    const shm = this.shm();
    // A connection's first line takes SQLite's lock: its write statement refuses a gate.db opened read-only. So
    // does every line while a server of the rta that wrote the row runs (each of its lines writes it again).
    if (!shm?.canLock || !this.writable || this.rowSeen) {
      this.appendInTransaction(append, undo);
      return;
    }
    this.writeLock.takingByte(shm);
    let rowFound = false;
    try {
      // A commit since a line last found no row: an older rta may have written one. Under the lock no commit can
      // come between the header read and the row's. A header that cannot be read (a writer died inside one)
      // is left to SQLite, which mends it under its own lock.
      const header = shm.readHeader();
      if (header === undefined) rowFound = true;
      else if (!this.rowless.same(header)) {
        try {
          rowFound = Boolean(this.row.get());
        } catch {
          rowFound = true; // SQLite would mend the WAL's index first, under the lock held here: left to it
        }
        if (!rowFound) this.rowless.mark(header);
      }
      if (!rowFound) this.appendHeld(append, undo);
    } finally {
      shm.unlock();
    }
    // Deleting the row is a write to gate.db, which takes SQLite's lock: this line is written under it.
    if (rowFound) this.appendInTransaction(append, undo);
  }

  /** append() under SQLite's lock, taken by an empty transaction. */
  private appendInTransaction(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void {
    this.writeLock.taking(() => this.txn.begin.run());
    try {
      // A connection SQLite opened read-only (gate.db not writable by this user) takes BEGIN IMMEDIATE without
      // the write lock, so its lines would not be ordered with another server's: a write statement, which changes
      // nothing, refuses it once (SQLITE_READONLY); a connection that opened writable stays so.
      if (!this.writable) {
        this.noWrite.run();
        this.writable = true;
      }
      this.appendHeld(append, undo, () => this.txn.commit.run());
    } finally {
      if (this.db.inTransaction) this.txn.rollback.run();
    }
  }

  /**
   * append()'s work, the write lock held. `commit`: SQLite's lock is held, under which an older rta's row is
   * taken in, and is let go by it (a line whose commit fails is taken back like one whose checkpoint does).
   */
  private appendHeld(
    append: (last: RecordCheckpoint) => RecordCheckpoint,
    undo: () => void,
    commit?: () => void,
  ): void {
    let last: RecordCheckpoint | undefined;
    let moved = false;
    try {
      last = this.held(commit !== undefined);
      lap("record: gate.db lock and checkpoint read");
      const next = append(last);
      moved = true;
      this.write(next);
      commit?.();
      lap("record: checkpoint write and commit");
    } catch (err) {
      // A checkpoint that could not be kept takes its line out of the file, and is put back as it was.
      if (moved) undo();
      if (moved && last) this.write(last);
      throw err;
    }
  }

  /**
   * The checkpoint the file at the name holds, read holding the lock: the file
   * opened again when its name holds another (removed, replaced) since the
   * last line, and made when there is none, carrying over gate.db's row
   * (`withRow`: SQLite's lock is held, and the row was looked for).
   */
  private held(withRow: boolean): RecordCheckpoint {
    const open = this.opened();
    const got = readSync(open.fd, this.scratch, 0, CHECKPOINT_BYTES, 0);
    const known = this.known;
    let held: RecordCheckpoint | undefined;
    if (known && got === CHECKPOINT_BYTES && known.bytes.equals(this.scratch)) held = known.checkpoint;
    else {
      held = parseCheckpoint(this.scratch, got);
      if (held) this.known = { bytes: Buffer.from(this.scratch), checkpoint: held };
    }
    // A row in gate.db is an older rta's checkpoint: one this file was made from, or one a server of an earlier
    // version still running wrote since. The later of the two is the line before this one; the row is then
    // deleted, so that such a server, finding none, goes on from the record's last line, not from its own last
    // line many lines back. Anything else in the file (cut, or not rta's) is a checkpoint gone, as gate.db
    // removed was: none.
    const row = withRow ? this.row.get() : null;
    this.rowSeen = Boolean(row);
    if (row) {
      try {
        this.dropRow.run();
      } catch {
        // a gate.db that cannot be written (read-only): the row stays, and is weighed again at the next line
      }
      if (!held || row.n > held.n) held = row;
    }
    if (!held) held = NONE;
    if (held !== this.known?.checkpoint) this.write(held);
    return held;
  }

  /** The checkpoint file the name holds now, opened (and made, 0600) when it is not the one this process has. */
  private opened(): OpenCheckpoint {
    const open = this.open;
    const named = this.probe.id();
    if (open && named && sameFile(named, open.id)) return open;
    if (open) closeSync(open.fd);
    this.open = undefined;
    this.known = undefined;
    // Not through a link, and never a FIFO's or a device's: the file is rta's alone. Nor a file with another name
    // (a hard link to record.key or gate.db): it is rewritten in place, over that file's first bytes. Asked only
    // when opened.
    const { O_RDWR, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = constants;
    const fd = openSync(this.file, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
    const id = fdId(fd);
    if (!id?.isFile || fstatSync(fd).nlink !== 1) {
      closeSync(fd);
      throw new Error(`${this.file} is not a regular file of its own (a link, a FIFO, a dir or a hard link)`);
    }
    // 0600 whatever mode it was found with (restored, made by hand), as gate.db is at each open: one open to
    // another account would let it put an old checkpoint back over a cut tail. One not this user's to change
    // refuses, as gate.db's does.
    try {
      fchmodSync(fd, 0o600);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    this.open = { fd, id };
    return this.open;
  }

  private write(c: RecordCheckpoint): void {
    const bytes = checkpointBytes(c);
    const open = this.open;
    if (!open) throw new Error("the record checkpoint is not open");
    const wrote = writeSync(open.fd, bytes, 0, CHECKPOINT_BYTES, 0);
    if (wrote !== CHECKPOINT_BYTES) throw new Error(`the record checkpoint took ${wrote} of ${CHECKPOINT_BYTES} bytes`);
    this.known = { bytes, checkpoint: c };
  }
}
