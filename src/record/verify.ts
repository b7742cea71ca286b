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
import { chainHash } from "./chain.ts";
import { checkChain, MacCheck } from "./chainCheck.ts";
import type { RecordLine } from "./line.ts";
import { eachBodyText, eachRecordText } from "./read.ts";
import type { At, Kept, Problem, Verdict, VerifyOptions } from "./verdict.ts";

export type { Problem, Verdict, VerifyOptions } from "./verdict.ts";

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
