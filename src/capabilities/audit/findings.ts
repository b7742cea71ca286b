/** Findings, as the audits report them: one row each, with a severity and what to do about it. */
import type { RowWriter } from "../../core/capability.ts";

export type Severity = "ok" | "info" | "low" | "medium" | "high";

export interface Finding {
  check: string;
  severity: Severity;
  finding: string;
  fix: string;
}

export const FINDING_COLUMNS = [
  { name: "check", doc: "what was checked" },
  { name: "severity", doc: "ok, info, low, medium or high" },
  { name: "finding", doc: "what was found" },
  { name: "fix", doc: "what to change, where something should change" },
];

/** Writes each finding as a row and finishes the table; refuses what the row writer refuses (past the hard bound). */
export function writeFindings(out: RowWriter, findings: Finding[]) {
  for (const f of findings) out.add([f.check, f.severity, f.finding, f.fix]);
  return out.finish();
}
