/**
 * What fs.find, fs.grep and fs.tree say of their walk beside their rows: entries the
 * server could not read were skipped (the `fs.walk.skipped` warning, whose
 * exit status the CLI takes, as find exits 1), and how far the walk has got,
 * for a person watching a terminal.
 */
import type { RunContext, Seen } from "../../core/capability.ts";
import type { LogResult, ResultValue, TableResult, TreeResult } from "../../core/result.ts";

/**
 * The result with a warning that `skipped` entries under `sent` could not be
 * read, when there were any; the result itself when none. Refuses nothing.
 */
export function withSkipped(result: ResultValue, skipped: number, sent: string): ResultValue {
  if (skipped === 0 || (result.type !== "table" && result.type !== "log" && result.type !== "tree")) return result;
  const one = skipped === 1;
  const under = sent === "" || sent === "." ? "" : ` under ${JSON.stringify(sent)}`;
  const said: TableResult | LogResult | TreeResult = result;
  said.warnings = [
    ...(said.warnings ?? []),
    {
      code: "fs.walk.skipped",
      message: `${skipped} ${one ? "entry" : "entries"}${under} could not be read (permission denied) and ${one ? "was" : "were"} skipped`,
    },
  ];
  return said;
}

/** Counts what a walk sees and tells the front, when it asked (a person's terminal). Refuses nothing. */
export class WalkProgress {
  private readonly seen: Seen = { files: 0, bytes: 0 };

  constructor(private readonly tell: RunContext["progress"]) {}

  /** One entry seen, and `bytes` of it read or passed by. */
  saw(bytes = 0): void {
    if (this.tell === undefined) return;
    this.seen.files++;
    this.seen.bytes += bytes;
    this.tell(this.seen);
  }
}

/**
 * An entry's path as the caller wrote the start: `src/cli` and `x.ts` give
 * `src/cli/x.ts`, `./src` keeps its `./`, an absolute start gives an
 * absolute path; `.` (the default) gives the entry's own path. What comes
 * back can be handed to fs.read as it is. Refuses nothing.
 */
export function asWritten(sent: string, rel: string): string {
  if (sent === "" || sent === ".") return rel;
  const start = sent.replace(/\/+$/, "");
  return start === "" ? `/${rel}` : `${start}/${rel}`;
}
