/**
 * `rta agent log --verify`: walks the record and names what was done to it.
 *
 *   cut-inside   lines of a session removed (its own numbering skips)
 *   cut-session  lines of the chain missing that no session left in the file
 *                accounts for: a whole session cut out, or the record's head
 *   cut-tail     the file ends before the store's checkpoint, or a session's
 *                end line is missing and its server no longer runs
 *   forged       a line that does not match its chain under the key: altered
 *                or made up; or not a record line at all; or one whose values
 *                verify but whose bytes are not as rta wrote them
 *   replaced     the line the checkpoint holds is another, no line verifies
 *                under the key, or the key or the checkpoint is gone
 *   reordered    a line out of its place, repeated, or after its session's end
 *   unkeyed      lines written before the record had a key: named once, since
 *                their unkeyed chain shows accidents, not forgery
 *
 * A session without its end line whose server still runs is open, not broken.
 * Without the key a line cannot be checked, so that is said instead.
 */
import { readFileSync } from "node:fs";
import type { RecordCheckpoint, RecordLine } from "./append.ts";
import { chainHash, chainMac } from "./chain.ts";
import { eachBodyText, eachRecordText } from "./read.ts";

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
interface Kept {
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

interface At {
  line: Kept;
  at: number;
}

interface Seen {
  seq: number;
  lastLine: number;
  ended: boolean;
  pid?: number;
  /** lines its numbering skipped */
  skipped: number;
}

/** Every line of the record in order: its text (undefined for one too long to be a record line) and its number. */
type Walk = (each: (text: string | undefined, at: number) => void) => void;

/** Verifies the record's text. */
export function verifyRecord(body: string, options: VerifyOptions = {}): Verdict {
  return verifyWalk((each) => eachBodyText(body, each), options);
}

/** Verifies the record file, read a chunk at a time (see read.ts). */
export function verifyFile(path: string, options: VerifyOptions = {}): Verdict {
  return verifyWalk((each) => eachRecordText(path, each), options);
}

function verifyWalk(walk: Walk, options: VerifyOptions): Verdict {
  const problems: Problem[] = [];
  const keyed: At[] = [];
  const unkeyed: At[] = [];
  const all: At[] = [];
  const macs = new MacCheck(options.key);
  // Each session's unkeyed chain, followed in file order as the lines are read.
  const hashes = new Map<string, string>();
  walk((text, at) => {
    const line = text === undefined ? undefined : parseLine(text);
    if (!line) {
      problems.push({ kind: "forged", session: "", line: at, what: "is not a record line" });
      return;
    }
    const kept: Kept = { session: line.session, seq: line.seq, hashBroken: false };
    if (line.kind !== undefined) kept.kind = line.kind;
    if (typeof line.pid === "number") kept.pid = line.pid;
    let into: At[];
    if (isPlace(line.n) && typeof line.mac === "string") {
      kept.n = line.n;
      kept.mac = line.mac;
      into = keyed;
    } else if (line.n !== undefined || line.mac !== undefined || typeof line.hash !== "string") {
      problems.push({ kind: "forged", session: line.session, line: at, what: "is not a record line" });
      return;
    } else if (keyed.length > 0) {
      // Nothing unkeyed is written once the record has a key: such a line after a keyed one was made up.
      problems.push({
        kind: "forged",
        session: line.session,
        line: at,
        what: "has no mac, yet comes after keyed lines: it was made up",
      });
      return;
    } else into = unkeyed;
    // The mac covers a line's values, not its bytes: the same values spelled otherwise (a field given twice, of
    // which JSON.parse keeps the last) verify, while grep or a log shipper that reads the first is told another
    // agent or tool. rta writes a line as JSON.stringify of its values, so any other spelling was made by hand.
    if (JSON.stringify(line) !== text)
      problems.push({
        kind: "forged",
        session: line.session,
        line: at,
        what: "is spelled otherwise than rta writes it (a field given twice, spaces or escapes added): its values may verify, but another reader of the file can be shown something else",
      });
    if (line.mac === undefined) {
      kept.hashBroken = chainHash(hashes.get(line.session) ?? "", line) !== line.hash;
    }
    hashes.set(line.session, line.hash ?? "");
    const item = { line: kept, at };
    into.push(item);
    all.push(item);
    if (into === keyed) macs.add(item, line);
  });
  macs.finish();
  const sessions = checkSessions(all, problems, options.alive ?? processAlive);
  if (unkeyed.length > 0) {
    const first = unkeyed[0] as At;
    problems.push({
      kind: "unkeyed",
      session: "",
      line: first.at,
      what: `and ${unkeyed.length - 1} line(s) after it were written before the record had a key: their chain is unkeyed, so whoever could write the file could have rewritten them unseen`,
    });
  }
  checkChain(keyed, macs.first, sessions.skipped, options, problems);
  return {
    sessions: sessions.count,
    lines: all.length,
    problems: dedupe(problems).sort((a, b) => a.line - b.line),
    open: sessions.open,
    unkeyed: unkeyed.length,
  };
}

/**
 * Each keyed line's mac against the first line in the file holding the place
 * before it, checked as the lines are read. A line whose predecessor comes
 * later in the file (only in a record someone moved lines in) is held whole
 * until the end.
 */
class MacCheck {
  /** the first line in the file at each place of the chain */
  readonly first = new Map<number, At>();
  private readonly waiting: { item: At; line: RecordLine }[] = [];

  constructor(private readonly key: Buffer | undefined) {}

  add(item: At, line: RecordLine): void {
    const n = item.line.n as number;
    if (!this.first.has(n)) this.first.set(n, item);
    if (!this.key) return;
    if (n === 1 || this.first.has(n - 1)) this.check(item, line);
    else this.waiting.push({ item, line });
  }

  finish(): void {
    for (const { item, line } of this.waiting) this.check(item, line);
  }

  private check(item: At, line: RecordLine): void {
    const n = item.line.n as number;
    const prev = n === 1 ? "" : this.first.get(n - 1)?.line.mac;
    if (prev === undefined) return; // after a gap: the gap is what is said
    item.line.macBroken = chainMac(this.key as Buffer, prev, line) !== line.mac;
  }
}

/** Each session's own numbering, its end, and (before the key) its unkeyed chain. */
function checkSessions(all: At[], problems: Problem[], alive: (pid: number) => boolean) {
  const sessions = new Map<string, Seen>();
  const present = new Map<string, Set<number>>();
  for (const { line } of all) present.set(line.session, (present.get(line.session) ?? new Set()).add(line.seq));
  for (const { line, at } of all) {
    const s = sessions.get(line.session) ?? { seq: 0, lastLine: 0, ended: false, skipped: 0 };
    sessions.set(line.session, s);
    const session = line.session;
    if (s.ended) problems.push({ kind: "reordered", session, line: at, what: "comes after its session's end line" });
    const seqs = present.get(session) as Set<number>;
    if (line.seq <= s.seq) {
      problems.push({
        kind: "reordered",
        session,
        line: at,
        what: `has sequence ${line.seq} after ${s.seq}: lines of its session were reordered or repeated`,
      });
    } else if (line.seq > s.seq + 1) {
      // Counted from the numbers present, never by walking the gap: a forged seq can be 2^53.
      let later = 0;
      for (const q of seqs) if (q > s.seq && q < line.seq) later++;
      const gone = line.seq - s.seq - 1 - later;
      s.skipped += gone;
      problems.push(
        gone > 0
          ? {
              kind: "cut-inside",
              session,
              line: at,
              what: `has sequence ${line.seq} where ${s.seq + 1} was due: ${gone} line(s) of its session before it were removed`,
            }
          : {
              kind: "reordered",
              session,
              line: at,
              what: `has sequence ${line.seq} where ${s.seq + 1} was due: lines of its session come after it`,
            },
      );
    }
    if (line.hashBroken) {
      problems.push({
        kind: "forged",
        session,
        line: at,
        what: "does not match its unkeyed chain: it, or a line before it, was altered, removed or reordered",
      });
    }
    s.seq = Math.max(s.seq, line.seq);
    s.lastLine = at;
    if (line.kind === "start" && line.pid !== undefined) s.pid = line.pid;
    if (line.kind === "end") s.ended = true;
  }
  const open: string[] = [];
  let skipped = 0;
  for (const [session, s] of sessions) {
    skipped += s.skipped;
    if (s.ended) continue;
    if (s.pid !== undefined && alive(s.pid)) open.push(session);
    else
      problems.push({
        kind: "cut-tail",
        session,
        line: s.lastLine,
        what: "is its session's last line, and the end line is missing: the session's tail was cut, or its server was killed",
      });
  }
  return { count: sessions.size, open, skipped };
}

/** The keyed chain through the whole file: places, macs, gaps, and the store's checkpoint. */
function checkChain(
  keyed: At[],
  byN: Map<number, At>,
  skipped: number,
  options: VerifyOptions,
  problems: Problem[],
): void {
  let maxN = 0;
  for (const item of keyed) {
    const { line, at } = item;
    const n = line.n as number;
    const what =
      byN.get(n) !== item
        ? `repeats line ${n} of the chain`
        : n < maxN
          ? `is line ${n} of the chain but comes after line ${maxN}: it was moved`
          : undefined;
    if (what) problems.push({ kind: "reordered", session: line.session, line: at, what });
    maxN = Math.max(maxN, n);
  }
  const { key, checkpoint } = options;
  if (keyed.length > 0 && !key) {
    problems.push({
      kind: "replaced",
      session: "",
      line: 0,
      what: "the record's key is missing from the data dir, so no line can be verified",
    });
  }
  if (key) checkMacs(keyed, problems);
  const present = [...byN.keys()].sort((a, b) => a - b);
  const first = present[0];
  if (first !== undefined && first > 1) {
    problems.push({
      kind: "cut-session",
      session: "",
      line: (byN.get(first) as At).at,
      what: `is line ${first} of the chain, the first in the file: the ${first - 1} line(s) before it were cut, or the file was replaced`,
    });
  }
  let missing = 0;
  let firstGapAt = 0;
  for (let i = 1; i < present.length; i++) {
    const gap = (present[i] as number) - (present[i - 1] as number) - 1;
    if (gap > 0 && missing === 0) firstGapAt = (byN.get(present[i] as number) as At).at;
    missing += gap;
  }
  if (missing > skipped) {
    problems.push({
      kind: "cut-session",
      session: "",
      line: firstGapAt,
      what: `follows a gap in the chain: ${missing - skipped} missing line(s) belong to no session left in the file, so a whole session, or a session's last lines, was cut out`,
    });
  }
  if (!checkpoint) return;
  if (checkpoint.n === 0) {
    if (keyed.length > 0)
      problems.push({
        kind: "replaced",
        session: "",
        line: 0,
        what: "the store holds no checkpoint for this keyed record: gate.db was replaced or removed, so a cut tail cannot be seen",
      });
    return;
  }
  if (keyed.length === 0) {
    problems.push({
      kind: "replaced",
      session: "",
      line: 0,
      what: `the file holds none of the ${checkpoint.n} line(s) the store's checkpoint counts: it was replaced or emptied`,
    });
    return;
  }
  const last = byN.get(maxN) as At;
  const held = byN.get(checkpoint.n);
  if (maxN < checkpoint.n) {
    problems.push({
      kind: "cut-tail",
      session: last.line.session,
      line: last.at,
      what: `is line ${maxN} of the chain and the last in the file, where the store's checkpoint counts ${checkpoint.n}: the record's last ${checkpoint.n - maxN} line(s) were cut`,
    });
  } else if (held && held.line.mac !== checkpoint.mac) {
    problems.push({
      kind: "replaced",
      session: held.line.session,
      line: held.at,
      what: `is not the line ${checkpoint.n} the store's checkpoint holds: the file was replaced`,
    });
  }
}

/** What MacCheck found of each line; a file where none verifies is said once. */
function checkMacs(keyed: At[], problems: Problem[]): void {
  const forged: At[] = [];
  let checked = 0;
  for (const item of keyed) {
    if (item.line.macBroken === undefined) continue;
    checked++;
    if (item.line.macBroken) forged.push(item);
  }
  if (checked > 1 && forged.length === checked) {
    problems.push({
      kind: "replaced",
      session: "",
      line: (forged[0] as At).at,
      what: "not one line verifies under the data dir's key: the file, or the key, was replaced",
    });
    return;
  }
  for (const { line, at } of forged)
    problems.push({
      kind: "forged",
      session: line.session,
      line: at,
      what: "does not match its chain: it was altered or made up (a line that matches takes the key)",
    });
}

/** A place in a chain or a session: a whole number from 1, small enough to count exactly. */
function isPlace(n: unknown): n is number {
  return Number.isSafeInteger(n) && (n as number) >= 1;
}

function parseLine(text: string): RecordLine | undefined {
  try {
    const line = JSON.parse(text) as RecordLine;
    if (typeof line?.session === "string" && isPlace(line.seq)) return line;
  } catch {
    // said by the caller
  }
  return undefined;
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const id = `${p.kind}\u0000${p.line}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** True while a process with that id runs and is an rta server. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("serve");
  } catch {
    return true;
  }
}
