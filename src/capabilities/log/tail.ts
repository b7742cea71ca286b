/**
 * log.tail: the last lines of a log file, read backwards from its end in
 * chunks, optionally only the lines that contain a filter. /var/log is a root
 * of its own for this capability. The filter is plain text, matched by RE2
 * (core/pattern) in a line's first 4,096 characters; the read gives way
 * between lines and stops when the call is cancelled.
 */
import type { FileBytes } from "../../core/access.ts";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { Pacer } from "../../core/pacer.ts";
import { compileLiteral, loadPatterns, type TextMatcher } from "../../core/pattern.ts";
import { keyArmourIn } from "../../core/privateKeys.ts";
import { LinesBefore, MASK } from "../../core/secrets.ts";
import { looksBinary, notFile } from "../fs/entryKind.ts";

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
    const p = ctx.paths.path;
    if (!p.stat.isFile()) throw notFile(p.sent);
    const size = p.stat.size;
    if (size > 0 && looksBinary(p.read(Math.max(0, size - 8192), Math.min(8192, size)))) {
      throw new RtaError(
        "fs.binary",
        `${JSON.stringify(p.sent)} holds binary data`,
        "journald and wtmp logs are binary: read them with their own tools",
      );
    }
    if (args.filter !== undefined) await loadPatterns();
    const filter = args.filter === undefined ? undefined : compileLiteral("filter", args.filter);
    const pacer = new Pacer(ctx.signal, `reading ${JSON.stringify(p.sent)}`);
    const found = await lastLines(p, size, args.lines, filter, pacer, ctx.shown);
    const out = ctx.rows(undefined, "log");
    for (const row of found.reverse()) out.add(row);
    return out.finish();
  },
});

/**
 * The last `want` lines the filter takes, newest first, read back from `size`
 * a chunk at a time. A chunk's whole lines are decoded at once (a newline
 * never splits a character); a line that spans chunks is kept as bytes until
 * its start is read, so a long line costs no copying per chunk. With `shown`
 * (an agent), a line is filtered and shown as `shown` makes it, once the lines
 * before it are read (see ShownBackwards).
 */
async function lastLines(
  file: FileBytes,
  size: number,
  want: number,
  filter: TextMatcher | undefined,
  pacer: Pacer,
  shown?: (text: string, before?: string) => string,
): Promise<[number, string][]> {
  const found: [number, string][] = [];
  let pieces: Buffer[] = []; // the end of the line being read, latest bytes first
  let fromEnd = 0;
  let last = true; // the next line is the file's last: empty, it is only the final newline
  const lines = new ShownBackwards(shown, (n, line) => {
    if (filter === undefined || filter.test(line)) found.push([n, line]);
  });
  // a line waiting for the lines before it may yet be one of the `want`
  const more = () => found.length < want || lines.waiting();
  const take = (line: string) => {
    if (last) {
      last = false;
      if (line === "") return;
    }
    fromEnd++;
    lines.add(-fromEnd, line);
  };
  const startingWith = (head: Buffer): string => {
    const line = Buffer.concat([head, ...pieces.reverse()]).toString("utf8");
    pieces = [];
    return line;
  };
  let pos = size;
  await pacer.pause(); // a call cancelled as soon as it was sent stops here
  while (pos > 0 && more() && size - pos < SCAN_BYTES) {
    if (pacer.due()) await pacer.pause();
    const start = Math.max(0, pos - CHUNK);
    const chunk = file.read(start, pos - start);
    pos = start;
    const lastNl = chunk.lastIndexOf(0x0a);
    if (lastNl === -1) {
      pieces.push(chunk); // all of it inside one line
      continue;
    }
    take(startingWith(chunk.subarray(lastNl + 1)));
    const firstNl = chunk.indexOf(0x0a);
    const from = pos === 0 ? 0 : firstNl + 1;
    if (from <= lastNl) {
      const text = chunk.toString("utf8", from, lastNl);
      for (let end = text.length; more(); ) {
        const nl = end > 0 ? text.lastIndexOf("\n", end - 1) : -1;
        take(text.slice(nl + 1, end));
        if (nl === -1) break;
        end = nl;
        if (pacer.due()) await pacer.pause();
      }
    }
    if (pos > 0) pieces = [chunk.subarray(0, firstNl)];
  }
  if (pos === 0 && pieces.length > 0 && more()) take(startingWith(Buffer.alloc(0))); // the first line
  lines.flush();
  // a blank line is taken as it comes, before a later one still waiting: newest first again
  return found.sort((a, b) => b[0] - a[0]).slice(0, want);
}

/**
 * Lines read from the end back, each handed on as `shown` makes it once the
 * two lines not blank before it have been read: a credential's name may stand
 * on them and its value on this one (see LinesBefore). A blank line has
 * nothing to mask and is handed on as it comes. At most two lines wait.
 */
class ShownBackwards {
  private readonly held: { n: number; line: string; before: string[] }[] = [];
  /** Read back from a private key's END and not yet to its BEGIN: the lines are the key. */
  private inKey = false;

  constructor(
    private readonly shown: ((text: string, before?: string) => string) | undefined,
    private readonly take: (n: number, line: string) => void,
  ) {}

  add(n: number, line: string): void {
    if (this.shown === undefined || !/\S/.test(line)) {
      this.take(n, line);
      return;
    }
    const armour = keyArmourIn(line);
    if (armour === "END") this.inKey = true;
    else if (armour === "BEGIN") this.inKey = false;
    else if (this.inKey) {
      for (const h of this.held) h.before.unshift(line);
      this.take(n, MASK);
      return;
    }
    for (const h of this.held) h.before.unshift(line);
    while (this.held.length > 0 && (this.held[0] as { before: string[] }).before.length >= 2) this.hand(0);
    this.held.push({ n, line, before: [] });
  }

  waiting(): boolean {
    return this.held.length > 0;
  }

  /** The file's start was reached (or as far back as is read): what waits is shown with what was read before it. */
  flush(): void {
    while (this.held.length > 0) this.hand(0);
  }

  private hand(i: number): void {
    const [h] = this.held.splice(i, 1);
    if (h === undefined || this.shown === undefined) return;
    const before = new LinesBefore();
    for (const l of h.before) before.add(l);
    this.take(h.n, this.shown(h.line, before.text()));
  }
}
