/** The agents the record has seen, for a grant that names none (gate/operator/agents.ts decides). */
import { eachRecordLine } from "../record/read.ts";
import { recordFile } from "./agentLog.ts";
import type { Cli } from "./factory.ts";

/**
 * Every agent name the record's calls carry, each once, read a line at a
 * time. A missing record has none; one that cannot be read is refused
 * (core.record.unavailable), since who it names cannot then be known.
 */
export function agentsInRecord(cli: Cli): Set<string> {
  const names = new Set<string>();
  eachRecordLine(recordFile(cli), (l) => {
    if (l && !l.kind && typeof l.agent === "string") names.add(l.agent);
  });
  return names;
}
