/**
 * What a call that ran says beyond its content, for a person: the warnings
 * its result carries, on stderr, and the exit status they and the
 * declaration give it. fs.find, fs.grep and fs.tree exit 1 when they skipped what they
 * could not read (as find does), and fs.grep when nothing matched (as grep
 * and rg do); a refusal keeps its own code's status (report.ts).
 */
import type { Capability } from "../core/capability.ts";
import { codes, Exit, isCode } from "../core/errors.ts";
import type { ResultValue } from "../core/result.ts";
import type { Io } from "./io.ts";
import { shown } from "./render.ts";

/** Says each warning of the result on stderr and returns the exit status of the call: the highest its codes give. */
export function resultStatus(io: Io, cap: Capability, value: ResultValue): number {
  let status: number = Exit.ok;
  const rows = value.type === "table" || value.type === "log" ? value : undefined;
  const warnings = value.type === "tree" ? value.warnings : rows?.warnings;
  for (const said of warnings ?? []) {
    io.err(`rta: warning: ${shown(said.message)}\n`);
    if (isCode(said.code)) status = Math.max(status, codes[said.code].exit);
  }
  const empty = cap.result.whenEmpty;
  // a plugin's own code (demo.nomatch) is in no catalogue: an empty table is then said as a failure's status
  if (empty !== undefined && rows !== undefined && rows.total === 0)
    status = Math.max(status, isCode(empty) ? codes[empty].exit : Exit.failure);
  return status;
}
