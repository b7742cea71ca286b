/**
 * log.tail: the last lines of a log file, read backwards from its end in
 * chunks, optionally only the lines that contain a filter. /var/log is a root
 * of its own for this capability. The filter is plain text, matched by RE2
 * (core/pattern) in a line's first 4,096 characters; the read gives way
 * between lines and stops when the call is cancelled.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { Pacer } from "../../core/pacer.ts";
import { compileLiteral } from "../../core/pattern.ts";
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
    filter: {
      type: "string",
      description:
        "only lines containing this text (plain text, not a pattern; looked for in a line's first 4,096 characters)",
    },
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
    const filter = args.filter === undefined ? undefined : compileLiteral("filter", String(args.filter));
    const pacer = new Pacer(ctx.signal, `reading ${JSON.stringify(p.sent)}`);
    const found: [number, string][] = []; // newest first
    // The line being read backwards, as pieces from its end towards its start: joined once, when it is whole.
    let pieces: Buffer[] = [];
    let fromEnd = 0;
    let skippedLast = false;
    const whole = () => {
      const line = Buffer.concat(pieces.reverse()).toString("utf8");
      pieces = [];
      if (!skippedLast) {
        skippedLast = true;
        if (line === "") return; // the file ends on a newline
      }
      fromEnd++;
      if (filter === undefined || filter.test(line)) found.push([-fromEnd, line]);
    };
    let pos = size;
    while (pos > 0 && found.length < want && size - pos < SCAN_BYTES) {
      const start = Math.max(0, pos - CHUNK);
      const chunk = readRange(p.fd, start, pos - start);
      pos = start;
      let end = chunk.length;
      while (end > 0 && found.length < want) {
        const nl = chunk.lastIndexOf(0x0a, end - 1);
        if (nl === -1) break;
        pieces.push(chunk.subarray(nl + 1, end));
        whole();
        end = nl;
        await pacer.step();
      }
      if (end > 0) pieces.push(chunk.subarray(0, end));
      await pacer.step();
    }
    if (pos === 0 && found.length < want) whole(); // the file's first line, empty or not
    const out = ctx.rows(["line", "text"], "log");
    for (const row of found.reverse()) out.add(row);
    return out.finish();
  },
});
