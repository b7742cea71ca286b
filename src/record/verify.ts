/**
 * `rta agent log --verify`: walks the record session by session and names
 * every line that was altered, removed or reordered, and every session whose
 * tail was cut. A session without its end line whose server still runs is
 * open, not broken.
 */
import { readFileSync } from "node:fs";
import type { RecordLine } from "./append.ts";
import { chainHash } from "./chain.ts";

export interface Problem {
  session: string;
  /** the line in the file, from 1 */
  line: number;
  what: string;
}

export interface Verdict {
  sessions: number;
  lines: number;
  problems: Problem[];
  /** sessions whose server is still running */
  open: string[];
}

interface Seen {
  seq: number;
  hash: string;
  lastLine: number;
  ended: boolean;
  pid?: number;
}

/** Verifies the record's text; `alive` says whether a server's process still runs. */
export function verifyRecord(body: string, alive: (pid: number) => boolean = processAlive): Verdict {
  const sessions = new Map<string, Seen>();
  const problems: Problem[] = [];
  const rows = body.split("\n");
  let count = 0;
  for (let i = 0; i < rows.length; i++) {
    const text = rows[i] as string;
    if (text === "") continue;
    const at = i + 1;
    let line: RecordLine;
    try {
      line = JSON.parse(text) as RecordLine;
      if (typeof line.session !== "string" || typeof line.seq !== "number" || typeof line.hash !== "string")
        throw new Error("not a line");
    } catch {
      problems.push({ session: "?", line: at, what: "is not a record line (altered, or cut in the middle)" });
      continue;
    }
    count++;
    const s = sessions.get(line.session) ?? { seq: 0, hash: "", lastLine: 0, ended: false };
    sessions.set(line.session, s);
    if (s.ended)
      problems.push({
        session: line.session,
        line: at,
        what: "comes after the session's end line (added or reordered)",
      });
    if (line.seq !== s.seq + 1) {
      const what =
        line.seq > s.seq + 1
          ? `has sequence ${line.seq} where ${s.seq + 1} was due: ${line.seq - s.seq - 1} line(s) before it were removed`
          : `has sequence ${line.seq} where ${s.seq + 1} was due: lines were reordered or repeated`;
      problems.push({ session: line.session, line: at, what });
    }
    if (chainHash(s.hash, line) !== line.hash) {
      problems.push({
        session: line.session,
        line: at,
        what: "does not match its chain: it, or a line before it, was altered, removed or reordered",
      });
    }
    s.seq = line.seq;
    s.hash = line.hash;
    s.lastLine = at;
    if (line.kind === "start" && line.pid !== undefined) s.pid = line.pid;
    if (line.kind === "end") s.ended = true;
  }
  const open: string[] = [];
  for (const [session, s] of sessions) {
    if (s.ended) continue;
    if (s.pid !== undefined && alive(s.pid)) open.push(session);
    else
      problems.push({
        session,
        line: s.lastLine,
        what: "is the session's last line, and its end line is missing: its tail was cut, or its server was killed",
      });
  }
  return { sessions: sessions.size, lines: count, problems, open };
}

export function verifyFile(path: string): Verdict {
  let body = "";
  try {
    body = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return verifyRecord(body);
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
