/**
 * What the record holds: one line per agent call, and a session's opening and
 * closing marks, as the writer (append.ts) seals them and the reader and the
 * verifier read them back. Values of arguments are never a field, only names.
 */

export interface RecordLine {
  /** a session's first and last lines, and the line written before a call runs; absent on a call's outcome */
  kind?: "start" | "end" | "run";
  /** ISO 8601, UTC */
  time: string;
  session: string;
  /** position of the line in its session, from 1 */
  seq: number;
  agent: string;
  client: string;
  transport: string;
  /** "resource": the call came as a resource read, not a tools/call */
  via?: "resource";
  /** the name the call used: a tool name from an agent */
  capability: string;
  /** "ok", or the code the call ended with; a mark's kind on a mark */
  outcome: string;
  /** the call named no tool, or one that is never a tool */
  probe?: true;
  /** the grant the call spent a use of */
  grant?: string;
  duration_ms: number;
  /** the names of the arguments sent, never their values; each cut at 256 bytes, the list at a few KiB */
  args: string[];
  /** when the list of names was cut: how many there were, and the byte count and sha256 of the whole list */
  args_cut?: { names: number; bytes: number; sha256: string };
  /**
   * a refusal or failure as it was written for the person, secrets masked; `detail` is what only the record
   * keeps (a plugin's stderr tail), never what the caller was told
   */
  error?: { message: string; hint?: string; detail?: string };
  /** on a start line: the server's process id */
  pid?: number;
  /** the line's place in the record's chain, from 1; absent on a line written before the record had a key */
  n?: number;
  /** HMAC-SHA256 chaining this line to the one before it in the file */
  mac?: string;
  /** a line written before the record had a key: an unkeyed sha256 chained per session */
  hash?: string;
}

export type RecordEntry = Omit<RecordLine, "seq" | "n" | "mac" | "hash">;

/** The record's last line as its writer left it: where a cut tail or a replaced file shows. */
export interface RecordCheckpoint {
  /** the line's place in the record's chain, from 1; 0 before the first line */
  n: number;
  /** the line's mac */
  mac: string;
  /** the record file's size in bytes just after that line */
  size: number;
}

/** Where the checkpoint is kept, and the lock that lets one writer at a time append (the grant store). */
export interface CheckpointStore {
  /** Runs `append` under the lock with the last checkpoint and keeps what it returns; `undo` if that cannot be kept. */
  appendRecordLine(append: (last: RecordCheckpoint) => RecordCheckpoint, undo: () => void): void;
}

export interface RecordSink {
  /**
   * Appends one line; throws core.record.unavailable when it cannot be written. A sink that commits lines in
   * batches (a PostgreSQL store's) returns a promise instead, settled once the line's batch is committed, and
   * rejected with core.record.unavailable when it was not: whoever answers a call awaits it first.
   */
  append(entry: RecordEntry): void | Promise<void>;
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
