/**
 * What verifying the record finds, as values: each problem by kind, line and
 * session, and the verdict over the file. Shared by the verifier and the
 * chain check it hands each line to.
 */
import type { RecordCheckpoint } from "./line.ts";

export type ProblemKind = "cut-inside" | "cut-session" | "cut-tail" | "forged" | "replaced" | "reordered" | "unkeyed";

export interface Problem {
  kind: ProblemKind;
  /** the session the line belongs to; "" when the problem is the file's */
  session: string;
  /** the line in the file, from 1; 0 for the file as a whole */
  line: number;
  what: string;
}

export interface Verdict {
  sessions: number;
  lines: number;
  problems: Problem[];
  /** sessions whose server is still running */
  open: string[];
  /** lines written before the record had a key */
  unkeyed: number;
}

export interface VerifyOptions {
  /** the data dir's key; without it no mac can be checked */
  key?: Buffer;
  /** the store's checkpoint; absent when there is no store to ask */
  checkpoint?: RecordCheckpoint;
  /** whether a server's process still runs */
  alive?: (pid: number) => boolean;
}

/**
 * What is kept of a line once it has been read: the whole line is not, so a
 * record of any size is verified holding a few dozen bytes a line.
 */
export interface Kept {
  session: string;
  seq: number;
  kind?: string;
  pid?: number;
  n?: number;
  mac?: string;
  /** a line without a mac that does not match its session's unkeyed chain */
  hashBroken: boolean;
  /** against the line before it in the chain: undefined when that line is not in the file */
  macBroken?: boolean;
}

export interface At {
  line: Kept;
  at: number;
}
