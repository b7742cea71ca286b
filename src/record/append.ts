/**
 * The record: one JSON line per agent call, appended to
 * `<data dir>/agent-log.jsonl`. Each line is written with a single write(2)
 * on a descriptor opened with O_APPEND, so concurrent writers (servers
 * sharing a data dir) never interleave inside a line. Values of arguments are
 * never written, only their names.
 *
 * It is tamper-evident: each line carries its sequence number in its session
 * and a hash chained to the previous line of that session (see chain.ts). A
 * session opens with a `start` line naming its process and closes with an
 * `end` line, so a cut tail shows. Sessions chain apart, so concurrent
 * servers need no lock between them.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { chainHash } from "./chain.ts";

export interface RecordLine {
  /** a session's first and last lines; absent on a call */
  kind?: "start" | "end";
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
  /** a refusal or failure as it was written for the person, secrets masked */
  error?: { message: string; hint?: string };
  /** on a start line: the server's process id */
  pid?: number;
  /** sha256 of the previous line's hash and this line, chaining the session */
  hash: string;
}

export type RecordEntry = Omit<RecordLine, "seq" | "hash">;

export interface RecordSink {
  append(entry: RecordEntry): void;
}

/** Numbers and chains lines per session; the store behind it only writes them. */
class Chains {
  private readonly last = new Map<string, { seq: number; hash: string }>();

  next(entry: RecordEntry): RecordLine {
    const prev = this.last.get(entry.session) ?? { seq: 0, hash: "" };
    const unhashed = { ...entry, seq: prev.seq + 1 };
    const line = { ...unhashed, hash: chainHash(prev.hash, unhashed) };
    this.last.set(entry.session, { seq: line.seq, hash: line.hash });
    return line;
  }
}

/** A sink that keeps lines in memory, for tests and for fronts that record nothing. */
export class MemoryRecord implements RecordSink {
  readonly lines: RecordLine[] = [];
  private readonly chains = new Chains();
  append(entry: RecordEntry): void {
    this.lines.push(this.chains.next(entry));
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
  private readonly chains = new Chains();

  constructor(
    readonly path: string,
    private readonly onFailure: (err: unknown) => void = () => {},
  ) {}

  append(entry: RecordEntry): void {
    const line = this.chains.next(entry);
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

/** A session's opening or closing line. */
export function sessionMark(kind: "start" | "end", session: string, time: Date, transport: string): RecordEntry {
  const mark: RecordEntry = {
    kind,
    time: time.toISOString(),
    session,
    agent: "",
    client: "",
    transport,
    capability: "",
    outcome: kind,
    duration_ms: 0,
    args: [],
  };
  if (kind === "start") mark.pid = process.pid;
  return mark;
}
