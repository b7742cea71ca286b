/**
 * The record: one JSON line per agent call, appended to
 * `<data dir>/agent-log.jsonl`. Each line is written with a single write(2)
 * on a descriptor opened with O_APPEND, so concurrent writers (two servers
 * sharing a data dir) never interleave inside a line. Values of arguments are
 * never written, only their names.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface RecordLine {
  /** ISO 8601, UTC */
  time: string;
  session: string;
  /** position of the line in its session, from 1 */
  seq: number;
  agent: string;
  client: string;
  transport: string;
  /** the name the call used: a tool name from an agent */
  capability: string;
  /** "ok", or the code the call ended with */
  outcome: string;
  /** the call named no tool, or one that is never a tool */
  probe?: true;
  /** the grant the call spent a use of */
  grant?: string;
  duration_ms: number;
  /** the names of the arguments sent, never their values */
  args: string[];
}

export type RecordEntry = Omit<RecordLine, "seq">;

export interface RecordSink {
  append(entry: RecordEntry): void;
}

/** A sink that keeps lines in memory, for tests and for fronts that record nothing. */
export class MemoryRecord implements RecordSink {
  readonly lines: RecordLine[] = [];
  private readonly seqs = new Map<string, number>();
  append(entry: RecordEntry): void {
    const seq = (this.seqs.get(entry.session) ?? 0) + 1;
    this.seqs.set(entry.session, seq);
    this.lines.push({ ...entry, seq });
  }
}

/**
 * Appends to a record file, opened on the first line so that a person's
 * command, which records nothing, never touches the data dir. A failure to
 * write is handed to `onFailure` rather than thrown: the call it describes
 * has already run and its answer must still reach the caller.
 */
export class FileRecord implements RecordSink {
  private fd: number | undefined;
  private readonly seqs = new Map<string, number>();

  constructor(
    readonly path: string,
    private readonly onFailure: (err: unknown) => void = () => {},
  ) {}

  append(entry: RecordEntry): void {
    const seq = (this.seqs.get(entry.session) ?? 0) + 1;
    this.seqs.set(entry.session, seq);
    const line: RecordLine = { ...entry, seq };
    try {
      this.fd ??= this.open();
      writeSync(this.fd, `${JSON.stringify(line)}\n`);
    } catch (err) {
      this.onFailure(err);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    return openSync(this.path, "a", 0o600);
  }
}
