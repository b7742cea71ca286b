/**
 * log.tail: the last lines of a log file, read backwards from its end in
 * chunks, optionally only the lines that contain a filter. /var/log is a root
 * of its own for this capability.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import type { ReadPath } from "../../gate/pathGate.ts";
import { looksBinary, notFile, readRange } from "../fs/fdio.ts";

const CHUNK = 64 * 1024;
/** How far back a filtered tail reads before it settles for what it found. */
const SCAN_BYTES = 64 * 1024 * 1024;

export const logTail = define({
  name: "log.tail",
  summary: "Show the last lines of a log file, optionally only those containing a filter",
  searchWords: ["tail", "last lines", "recent log", "syslog"],
  safety: "read",
  defaultRoots: ["/var/log"],
  inputs: {
    path: { type: "string", description: "the log file", required: true, path: "read", positional: true },
    lines: { type: "integer", description: "how many lines", range: [1, 10_000], default: 100 },
    filter: { type: "string", description: "only lines containing this text" },
  },
  result: {
    shape: "log",
    columns: [
      { name: "line", doc: "the line number from the end (-1 is the last)" },
      { name: "text", doc: "the line" },
    ],
  },
  examples: [{ command: "rta log tail /var/log/dpkg.log --lines 20", note: "the last 20 lines" }],
  async run(args, ctx) {
    const p = ctx.paths.path as ReadPath;
    if (!p.stat.isFile()) throw notFile(p.sent);
    const size = p.stat.size;
    if (size > 0 && looksBinary(readRange(p.fd, Math.max(0, size - 8192), Math.min(8192, size)))) {
      throw new RtaError(
        "fs.binary",
        `${JSON.stringify(p.sent)} holds binary data`,
        "journald and wtmp logs are binary: read them with their own tools",
      );
    }
    const want = args.lines as number;
    const filter = args.filter as string | undefined;
    // the filter is matched on the line as the caller will see it, so a secret's letters cannot be guessed one by one
    const shown = ctx.shown ?? ((line: string) => line);
    const found: [number, string][] = []; // newest first
    let pos = size;
    let carry = "";
    let fromEnd = 0;
    let skippedLast = false;
    while (pos > 0 && found.length < want && size - pos < SCAN_BYTES) {
      const start = Math.max(0, pos - CHUNK);
      const chunk = readRange(p.fd, start, pos - start).toString("utf8") + carry;
      pos = start;
      const parts = chunk.split("\n");
      carry = pos > 0 ? (parts.shift() ?? "") : "";
      for (let i = parts.length - 1; i >= 0 && found.length < want; i--) {
        const line = parts[i] as string;
        if (!skippedLast) {
          skippedLast = true;
          if (line === "") continue; // the file ends on a newline
        }
        fromEnd++;
        if (filter === undefined || shown(line).includes(filter)) found.push([-fromEnd, line]);
      }
    }
    const out = ctx.rows(["line", "text"], "log");
    for (const row of found.reverse()) out.add(row);
    return out.finish();
  },
});
