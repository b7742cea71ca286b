/**
 * The record: one JSON line per agent call, appended to
 * `<data dir>/agent-log.jsonl`. Values of arguments are never written, only
 * their names.
 *
 * It is tamper-evident under a key (see chain.ts and key.ts). Every line
 * carries its place `n` in one chain that runs through the whole file, and a
 * mac chained to the line before it, whatever that line's session: a line or
 * a whole session cut out, a line altered, moved or made up, all break it.
 * The last line's place, mac and the file's size are kept as a checkpoint
 * beside it (record.checkpoint, kept by the grant store), so a cut tail or a
 * replaced file shows too.
 *
 * Servers sharing a data dir append in turn: each line is written holding
 * gate.db's write lock, under which the writer reads the checkpoint (the line
 * before it) and writes the new one, in step with the file. A line is one
 * write(2) on a descriptor opened with O_APPEND; a write cut short (a full
 * disk) is truncated away under the same lock, so no torn line is left.
 *
 * Each session also numbers its own lines (`seq`) and opens with a `start`
 * line naming its process and closes with an `end` line.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { RtaError } from "../core/errors.ts";
import { lap } from "../core/profile.ts";
import { chainMac } from "./chain.ts";
import { type FileId, fdId, hasRoom, NameProbe, sameFile } from "./fileId.ts";
import type { CheckpointStore, RecordCheckpoint, RecordEntry, RecordLine, RecordSink } from "./line.ts";
import { sealLine } from "./lineText.ts";

export type { CheckpointStore, RecordCheckpoint, RecordEntry, RecordLine, RecordSink } from "./line.ts";
export { sessionMark } from "./line.ts";

/** Numbers each session's lines; a number is used only once its line is written. */
class SessionSeqs {
  private readonly last = new Map<string, number>();
  next(session: string): number {
    return (this.last.get(session) ?? 0) + 1;
  }
  used(session: string, seq: number): void {
    this.last.set(session, seq);
  }
}

/** A sink that keeps lines in memory, for tests and for fronts that record nothing. */
export class MemoryRecord implements RecordSink {
  readonly lines: RecordLine[] = [];
  private readonly seqs = new SessionSeqs();

  constructor(readonly key: Buffer = randomBytes(32)) {}

  append(entry: RecordEntry): void {
    const last = this.lines.at(-1);
    const seq = this.seqs.next(entry.session);
    const { n, mac } = sealLine(this.key, entry, seq, { n: last?.n ?? 0, mac: last?.mac ?? "" });
    this.seqs.used(entry.session, seq);
    this.lines.push({ ...entry, seq, n, mac });
  }
}

export interface FileRecordOptions {
  /** the data dir's key, read (or made) when the first line is written */
  key: () => Buffer;
  /** the checkpoint's store, opened when the first line is written */
  checkpoints: () => CheckpointStore;
  /** told of every line that could not be written, with why */
  onFailure?: (err: unknown) => void;
}

/** How far back from the end a writer looks for the last line another left without a checkpoint. */
const TAIL_WINDOW = 64 * 1024;

/**
 * Appends to a record file, opened on the first line so that a person's
 * command, which records nothing, never touches the data dir.
 */
export class FileRecord implements RecordSink {
  /** the record file open, and which file it is, to tell it from another put at the record's name */
  private opened: { fd: number; id: FileId } | undefined;
  /** asks what the record's name holds, once a line */
  private readonly named: NameProbe;
  private key: Buffer | undefined;
  private store: CheckpointStore | undefined;
  private readonly seqs = new SessionSeqs();

  constructor(
    readonly path: string,
    private readonly options: FileRecordOptions,
  ) {
    this.named = new NameProbe(path);
  }

  append(entry: RecordEntry): void {
    try {
      this.key ??= this.options.key();
      this.store ??= this.options.checkpoints();
      const key = this.key;
      let fd = -1;
      let wrote: { from: number; to: number; seq: number } | undefined;
      this.store.appendRecordLine(
        (last) => {
          const file = this.current();
          fd = file.fd;
          const next = this.write(file, key, entry, last);
          wrote = { from: next.size - next.written, to: next.size, seq: next.seq };
          return { n: next.n, mac: next.mac, size: next.size };
        },
        // The line is in the file but its checkpoint could not be kept: taken out, unless another line followed.
        () => {
          if (wrote && fstatSync(fd).size === wrote.to) ftruncateSync(fd, wrote.from);
        },
      );
      // A session's number is spent only once its line is kept.
      if (wrote) this.seqs.used(entry.session, wrote.seq);
    } catch (err) {
      this.options.onFailure?.(err);
      throw new RtaError(
        "core.record.unavailable",
        "the record cannot be written",
        "a person must make the record writable again (room on its disk, its file and store writable)",
      );
    }
  }

  close(): void {
    if (this.opened !== undefined) closeSync(this.opened.fd);
    this.opened = undefined;
  }

  /** Writes one line after `last` into the file `current` gave, holding the store's lock; returns the new checkpoint. */
  private write(
    { fd, size }: OpenRecord,
    key: Buffer,
    entry: RecordEntry,
    last: RecordCheckpoint,
  ): RecordCheckpoint & { written: number; seq: number } {
    let prev = { n: last.n, mac: last.mac };
    let lead = "";
    if (size > last.size) {
      // Lines past the checkpoint: writers that died between their write and their checkpoint, or lines from
      // before the key. The chain goes on from the last of them that chains on from the checkpoint under the key:
      // a line someone appended by hand, claiming place 2^53 - 1, would otherwise number every later line past
      // what can be counted. A torn line is ended so this one starts clean.
      const read = readTail(fd, size, size - last.size);
      for (const past of read.lines) {
        const { n, mac } = past;
        if (n !== prev.n + 1 || typeof mac !== "string" || chainMac(key, prev.mac, past) !== mac) break;
        prev = { n, mac };
      }
      // A store with no checkpoint (made anew beside a keyed record) goes on from the file's last line as before.
      const tail = read.lines.at(-1);
      if (last.n === 0 && prev.n === 0 && Number.isSafeInteger(tail?.n) && typeof tail?.mac === "string")
        prev = { n: tail.n as number, mac: tail.mac };
      if (read.torn) lead = "\n";
    }
    // A file smaller than the checkpoint was cut or replaced: the chain goes on from the checkpoint all the
    // same, so --verify names what is missing.
    lap("record: file checks");
    const seq = this.seqs.next(entry.session);
    const line = sealLine(key, entry, seq, prev);
    const text = `${lead}${line.text}\n`;
    const length = Buffer.byteLength(text);
    lap("record: line and mac");
    // A disk with no block left refuses the line even where it would still fit in the file's last block: the
    // record, the store and the outcome lines to come share it, so calls stop at once, not a few lines later.
    if (!hasRoom(fd, this.path)) throw new Error("the record's disk is full");
    try {
      const written = writeSync(fd, text);
      if (written !== length) throw new Error(`the record took ${written} of ${length} bytes`);
    } catch (err) {
      ftruncateSync(fd, size);
      throw err;
    }
    lap("record: write");
    return { n: line.n, mac: line.mac, size: size + length, written: length, seq };
  }

  /**
   * The descriptor of the file the record's name holds now, opened again when
   * it was removed, renamed or replaced since the last line: a line written to
   * the file that was there before would be on no record anyone reads, and its
   * call would run as if it were. Called holding the store's lock, so the
   * size it gives is still the file's when the line is written. One statx of
   * the name a line: when it holds the file open, its size is the open file's.
   */
  private current(): OpenRecord {
    if (this.opened !== undefined) {
      const named = this.named.id();
      if (named && sameFile(named, this.opened.id)) return { fd: this.opened.fd, size: named.size };
      this.close();
    }
    const opened = this.open();
    this.opened = { fd: opened.fd, id: opened.id };
    return opened;
  }

  /** Opens the record file, made 0600 when missing; refuses a link, a FIFO, a device or a dir in its place. */
  private open(): OpenRecord & { id: FileId } {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    // Read too: a writer looks at the tail another left without a checkpoint. Not through a link, and never
    // waiting on a FIFO's reader (a write to one would block the server holding the store's lock).
    const { O_RDWR, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = constants;
    const fd = openSync(this.path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
    const id = fdId(fd);
    if (!id?.isFile) {
      closeSync(fd);
      throw new Error(`${this.path} is not a regular file`);
    }
    return { fd, size: id.size, id };
  }
}

/** The record file's descriptor and its size, as one stat of it found them. */
interface OpenRecord {
  fd: number;
  size: number;
}

/**
 * The whole lines of the file's last `past` bytes (none when that is more than
 * TAIL_WINDOW, or the last line alone when it is not known where they begin),
 * and whether the file ends inside a line.
 */
function readTail(fd: number, size: number, past: number): { lines: RecordLine[]; torn: boolean } {
  // Only the bytes past the checkpoint when they fit the window, not the whole window every time.
  const length = Math.min(size, past, TAIL_WINDOW);
  const buf = Buffer.allocUnsafe(length);
  const got = readSync(fd, buf, 0, length, size - length);
  const text = buf.toString("utf8", 0, got);
  const torn = !text.endsWith("\n");
  const whole = text.slice(0, text.lastIndexOf("\n"));
  // Cut by bytes, not characters: `past` counts bytes, and a line can hold characters of several.
  const rows =
    past <= got ? buf.toString("utf8", got - past, got).split("\n") : [whole.slice(whole.lastIndexOf("\n") + 1)];
  const lines: RecordLine[] = [];
  for (const row of rows) {
    if (row === "") continue;
    try {
      lines.push(JSON.parse(row) as RecordLine);
    } catch {
      // a torn or foreign line: the chain stops before it
    }
  }
  return { lines, torn };
}
