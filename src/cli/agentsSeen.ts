/** The agents the record has seen, for a grant that names none (gate/operator/agents.ts decides). */
import type { Cli } from "./factory.ts";
import { recordSource } from "./recordSource.ts";

/**
 * Every agent name the record's calls carry, each once, read a line at a
 * time: the data dir's file, or a PostgreSQL store's record (recordSource.ts).
 * A missing record has none; one that cannot be read is refused
 * (core.record.unavailable, or core.store.unavailable for a store), since who
 * it names cannot then be known.
 */
export function agentsInRecord(cli: Cli): Set<string> {
  const names = new Set<string>();
  const source = recordSource(cli);
  try {
    source.each((l) => {
      if (l && !l.kind && typeof l.agent === "string") names.add(l.agent);
    });
  } finally {
    source.close();
  }
  return names;
}
