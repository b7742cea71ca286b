/**
 * The keyed chain's part of `rta agent log --verify` (see verify.ts): each
 * line's mac against the line before it, the chain's places and gaps, and the
 * store's checkpoint. The walk and each session's own numbering stay in
 * verify.ts.
 */
import type { RecordLine } from "./append.ts";
import { chainMac } from "./chain.ts";
import type { At, Problem, VerifyOptions } from "./verdict.ts";

/**
 * Each keyed line's mac against the first line in the file holding the place
 * before it, checked as the lines are read. A line whose predecessor comes
 * later in the file (only in a record someone moved lines in) is held whole
 * until the end.
 */
export class MacCheck {
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

/** The keyed chain through the whole file: places, macs, gaps, and the store's checkpoint. */
export function checkChain(
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
        what: "the data dir holds no checkpoint for this keyed record: record.checkpoint (or gate.db) was replaced or removed, so a cut tail cannot be seen",
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
